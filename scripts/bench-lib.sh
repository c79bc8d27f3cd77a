# Shared by the compile-time benchmarks (sourced, not run).

# The median of 5 debug rebuilds of the crate in folder $1, each after touching its lib.rs.
median_build() {
    local times=()
    for _ in 1 2 3 4 5; do
        touch "$1/src/lib.rs"
        local start end
        start=$(date +%s.%N)
        (cd "$1" && cargo build -q)
        end=$(date +%s.%N)
        times+=("$(echo "$end - $start" | bc -l)")
    done
    printf '%s\n' "${times[@]}" | sort -n | sed -n 3p
}

# A crate manifest named $1 depending on the cuda-kernel of the repository at $2. With
# BENCH_OPTIMIZED_MACROS=1, proc macros (and build scripts) are compiled optimized in the debug
# profile, as `[profile.dev.build-override] opt-level = 3` in a user's workspace does.
crate_manifest() {
    cat <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
cuda-kernel = { path = "$2/cuda-kernel" }

[workspace]
TOML
    if [ "${BENCH_OPTIMIZED_MACROS:-0}" = 1 ]; then
        printf '\n[profile.dev.build-override]\nopt-level = 3\n'
    fi
}
