//! The load check: a declaration's layout against the parameters the driver reports for its
//! kernel, for functions of modules and kernels of libraries alike.

use crate::{Error, ParamLayout, SignatureMismatch};

/// Where the driver cannot report parameter offsets: fine for a fixed layout (the declaration
/// is trusted), [`Error::UnplacedParam`] for one with a parameter only the driver can place.
pub(crate) fn unplaced(name: &str, layout: &ParamLayout) -> Result<(), Error> {
    match layout.params.get(layout.fixed) {
        None => Ok(()),
        Some(param) => Err(Error::UnplacedParam {
            kernel: name.into(),
            param: param.name,
            align: param.align,
        }),
    }
}

/// Compares `layout` with the offsets and sizes the driver reports for a kernel:
/// `param_info(index)` is its answer for one parameter, `None` past the last
/// (`cuFuncGetParamInfo` of a function, `cuKernelGetParamInfo` of a library's kernel). With
/// the function's parameter `count` known (`cuFuncGetParamCount`), no index past it is asked;
/// without it, one index past the declared count is, which a function with more parameters
/// answers.
///
/// Returns the layout the function places its parameters in where `layout` is not
/// [fixed](ParamLayout::is_fixed): the driver's offsets ([`ParamLayout::placed`]).
pub(crate) fn check_signature(
    name: &str,
    layout: &ParamLayout,
    count: Option<usize>,
    mut param_info: impl FnMut(usize) -> Result<Option<(usize, usize)>, Error>,
) -> Result<Option<ParamLayout>, Error> {
    let asked = match count {
        Some(count) => count.min(layout.params.len() + 1),
        None => layout.params.len() + 1,
    };
    let mut loaded = Vec::with_capacity(asked);
    for index in 0..asked {
        match param_info(index)? {
            Some(param) => loaded.push(param),
            None => break,
        }
    }
    if layout.misfit(&loaded).is_none() {
        Ok(if layout.is_fixed() {
            None
        } else {
            layout.placed(&loaded)
        })
    } else {
        Err(Error::SignatureMismatch(Box::new(SignatureMismatch {
            kernel: name.into(),
            declared: *layout,
            loaded,
        })))
    }
}

#[cfg(test)]
mod signature_tests {
    use super::*;
    use crate::{ParamLayout, ParamSlot};

    const LAYOUT: ParamLayout = ParamLayout::from_slots(&ParamLayout::place([
        ParamSlot::of::<u64>("x"),
        ParamSlot::of::<f32>("a"),
        ParamSlot::of::<u32>("n"),
    ]));

    /// The check against a driver whose function takes `params`, and how many times it was
    /// asked past them (which the real driver answers with `CUDA_ERROR_INVALID_VALUE`).
    fn check(
        params: &[(usize, usize)],
        count: Option<usize>,
    ) -> (Result<Option<ParamLayout>, Error>, usize) {
        let mut past = 0;
        let result = check_signature("k", &LAYOUT, count, |index| {
            Ok(match params.get(index) {
                Some(&p) => Some(p),
                None => {
                    past += 1;
                    None
                }
            })
        });
        (result, past)
    }

    #[test]
    fn with_the_count_known_no_parameter_past_the_last_is_asked() {
        let params = [(0, 8), (8, 4), (12, 4)];
        let (result, past) = check(&params, Some(3));
        assert!(result.is_ok());
        assert_eq!(past, 0);
        // Without the count, one index past the declared ones is asked.
        let (result, past) = check(&params, None);
        assert!(result.is_ok());
        assert_eq!(past, 1);
    }

    #[test]
    fn a_different_count_is_a_mismatch_either_way() {
        let more = [(0, 8), (8, 4), (12, 4), (16, 8)];
        let mismatch =
            |r: Result<Option<ParamLayout>, Error>| matches!(r, Err(Error::SignatureMismatch(_)));
        assert!(mismatch(check(&more, Some(4)).0));
        assert!(mismatch(check(&more, None).0));
        let (result, past) = check(&more[..2], Some(2));
        assert!(mismatch(result));
        assert_eq!(past, 0);
    }
}
