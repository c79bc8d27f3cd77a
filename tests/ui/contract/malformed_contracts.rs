// A contract's mistakes are errors on their spans, all at once: a name that is not a
// parameter, a float compared with a length, a pointer compared as a number, `.len()` of a
// number, a condition that is not one, a pointer the contract says nothing of, and a pointer
// to pointers, which no contract can cover.
use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    #[requires(c.len() >= m)]
    fn unknown_name(c: *mut f32, n: i32);

    #[requires(c.len() >= alpha)]
    fn float_compared(c: *mut f32, alpha: f32);

    #[requires(c >= n)]
    fn pointer_compared(c: *mut f32, n: i32);

    #[requires(c.len() >= n, n.len() > 0)]
    fn len_of_a_number(c: *mut f32, n: i32);

    #[requires(n)]
    fn not_a_condition(n: i32);

    #[requires(a.len() >= n, c.len() >= n)]
    fn says_nothing_of_b(a: *const f32, b: *const f32, c: *mut f32, n: i32);

    #[requires(rows.len() >= n)]
    fn pointer_to_pointers(rows: *const *const f32, n: i32);

    #[requires(config.warps() >= n)]
    fn unknown_config_term(n: i32);
}

fn main() {}
