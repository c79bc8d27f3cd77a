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

# A crate manifest named $1 depending on the cuda-kernel of the repository at $2.
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
}
