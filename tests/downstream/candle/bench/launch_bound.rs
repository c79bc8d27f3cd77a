//! A launch-bound candle workload for issue 47 (candle on cuda-kernel): a chain of small ops
//! on an 8x64 tensor (elementwise, affine, casts, reductions, broadcasts, a strided copy, index
//! select, gather, comparisons, where, argsort: about 24 kernel launches), run until the GPU is
//! idle between chains, so that the time is the launches' cost. Built as an example of
//! candle-core in both trees by build-tests.sh; run both in one device call, alternating.
//!
//!   launch_bound LABEL [CHAINS [exp]]   prints `LABEL: X us per chain (median of 9 runs of
//!   CHAINS)`; with `exp`, the time of one op (`x.exp()`) instead of the chain

use candle_core::{DType, Device, Result, Tensor, D};

fn chain(x: &Tensor, ids: &Tensor, gather_ids: &Tensor) -> Result<Tensor> {
    let y = x.exp()?.sqrt()?.neg()?.abs()?;
    let y = (&y + x)?.affine(0.5, 1.0)?;
    let y = y.to_dtype(DType::F16)?.to_dtype(DType::F32)?;
    let s = y.sum_keepdim(D::Minus1)?;
    let y = y.broadcast_sub(&s)?;
    let y = y.t()?.contiguous()?.index_select(ids, 1)?.t()?.contiguous()?;
    let m = y.max_keepdim(D::Minus1)?;
    let mask = y.ge(&m.broadcast_as(y.shape())?)?;
    let y = mask.where_cond(&y, &y.sqr()?)?;
    let y = y.gather(gather_ids, 1)?;
    let idx = y.arg_sort_last_dim(true)?;
    let y = (y.powf(2.0)? + idx.to_dtype(DType::F32)?)?;
    y.argmax_keepdim(D::Minus1)?.to_dtype(DType::F32)?.broadcast_add(&y)
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let label = args.next().unwrap_or_else(|| "candle".to_string());
    let chains: usize = args.next().map_or(2000, |n| n.parse().expect("CHAINS"));
    // `exp`: one op alone (`x.exp()`), the launch path and candle's own overhead per op.
    let one_op = args.next().as_deref() == Some("exp");
    let dev = Device::new_cuda(0)?;
    let x = Tensor::randn(0f32, 1., (8, 64), &dev)?;
    let ids = Tensor::new(&[0u32, 3, 5, 7], &dev)?;
    let gather_ids = Tensor::arange(0u32, 32, &dev)?.reshape((1, 32))?.repeat((4, 1))?;
    let run = || -> Result<Tensor> {
        match one_op {
            true => x.exp(),
            false => chain(&x, &ids, &gather_ids),
        }
    };
    // The CPU's answer, to know the chain computes what it should on both trees.
    let cpu = chain(
        &x.to_device(&Device::Cpu)?,
        &ids.to_device(&Device::Cpu)?,
        &gather_ids.to_device(&Device::Cpu)?,
    )?;
    let gpu = chain(&x, &ids, &gather_ids)?.to_device(&Device::Cpu)?;
    let diff = (cpu - gpu)?.abs()?.max_all()?.to_scalar::<f32>()?;
    for _ in 0..200 {
        run()?;
    }
    dev.synchronize()?;
    let mut runs = Vec::new();
    for _ in 0..9 {
        let start = std::time::Instant::now();
        for _ in 0..chains {
            run()?;
        }
        dev.synchronize()?;
        runs.push(start.elapsed().as_secs_f64() * 1e6 / chains as f64);
    }
    runs.sort_by(f64::total_cmp);
    let what = if one_op { "exp" } else { "chain" };
    println!(
        "{label}: {:.2} us per {what} (median of 9 runs of {chains}; min {:.2}, max {:.2}; \
         largest difference of the chain from the CPU {diff:e})",
        runs[4], runs[0], runs[8]
    );
    Ok(())
}
