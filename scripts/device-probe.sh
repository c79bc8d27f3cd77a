#!/usr/bin/env bash
# Prints what the GPU machine has: GPU, driver, nvcc, libcuda. Used at the start of device runs.
set -u
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1
nvcc --version 2>&1 | tail -n 2
ldconfig -p 2>/dev/null | grep -E 'libcuda\.so' | head -n 3
uname -m
date -u +%Y-%m-%dT%H:%MZ
