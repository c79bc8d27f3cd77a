//! A candle-transformers Llama end to end on the GPU, the same binary built against each tree
//! (`build-tests.sh`, crates.io's candle-nn and candle-transformers 0.11.1 over the tree's
//! candle-core): a small Llama-style model (6 layers, hidden 512, 8 heads over 4 KV heads,
//! vocabulary 4096) with weights made from each tensor's name (no download, the same in every
//! run and tree), a 16-token prompt, then 64 tokens generated greedily with the KV cache.
//!
//! Prints, per dtype: a hash of every step's logits (their bits), the tokens generated, and
//! tokens per second (the generation timed alone, after a warm-up generation; the median of 5).
//!
//!     llama_e2e <label> [dtype...]   (dtypes: f32 bf16 f16; default all three)
use std::collections::HashMap;
use std::time::Instant;

use candle_core::{DType, Device, Tensor, D};
use candle_nn::{VarBuilder, VarMap};
use candle_transformers::models::llama::{Cache, Config, Llama, LlamaConfig};

const PROMPT: [u32; 16] = [
    1, 15, 27, 311, 42, 999, 7, 2048, 64, 3001, 128, 5, 777, 4000, 19, 256,
];
const GENERATED: usize = 64;

fn config() -> Config {
    LlamaConfig {
        hidden_size: 512,
        intermediate_size: 1376,
        vocab_size: 4096,
        num_hidden_layers: 6,
        num_attention_heads: 8,
        num_key_value_heads: Some(4),
        rms_norm_eps: 1e-5,
        rope_theta: 10_000.0,
        bos_token_id: Some(1),
        eos_token_id: None,
        rope_scaling: None,
        max_position_embeddings: 1024,
        tie_word_embeddings: Some(false),
    }
    .into_config(false)
}

/// FNV-1a over bytes.
fn fnv(hash: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *hash ^= u64::from(*b);
        *hash = hash.wrapping_mul(0x100_0000_01b3);
    }
}

/// Every weight the model loads, named as it loads them, with values made from the name: a norm's
/// weights near 1, the others small and spread as 1/sqrt(fan-in) would spread them.
fn weights(
    cfg: &Config,
    dtype: DType,
    gpu: &Device,
) -> candle_core::Result<HashMap<String, Tensor>> {
    let names = VarMap::new();
    Llama::load(
        VarBuilder::from_varmap(&names, DType::F32, &Device::Cpu),
        cfg,
    )?;
    let data = names.data().lock().unwrap();
    let mut out = HashMap::new();
    for (name, var) in data.iter() {
        let shape = var.shape().clone();
        let mut seed = 0xcbf2_9ce4_8422_2325u64;
        fnv(&mut seed, name.as_bytes());
        let fan_in = *shape.dims().last().unwrap_or(&1) as f32;
        let norm = name.contains("norm");
        let values: Vec<f32> = (0..shape.elem_count() as u64)
            .map(|i| {
                let mut x = seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                x ^= x >> 33;
                x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
                x ^= x >> 33;
                let unit = (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5; // [-0.5, 0.5)
                match norm {
                    true => 1.0 + 0.1 * unit,
                    false => unit * 2.0 / fan_in.sqrt(),
                }
            })
            .collect();
        let t = Tensor::from_vec(values, shape, gpu)?.to_dtype(dtype)?;
        out.insert(name.clone(), t);
    }
    Ok(out)
}

/// One generation: the logits' hash, the tokens, the seconds the 64 generated tokens took.
fn generate(
    model: &Llama,
    cfg: &Config,
    dtype: DType,
    gpu: &Device,
) -> candle_core::Result<(u64, Vec<u32>, f64)> {
    let mut cache = Cache::new(true, dtype, cfg, gpu)?;
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut tokens = PROMPT.to_vec();
    let mut step = |input: &[u32], pos: usize, cache: &mut Cache| -> candle_core::Result<u32> {
        let x = Tensor::new(input, gpu)?.unsqueeze(0)?;
        let logits = model.forward(&x, pos, cache)?.squeeze(0)?;
        let logits = logits.to_dtype(DType::F32)?;
        let values = logits.to_vec1::<f32>()?;
        for v in &values {
            fnv(&mut hash, &v.to_bits().to_le_bytes());
        }
        logits.argmax(D::Minus1)?.to_scalar::<u32>()
    };
    let first = step(&PROMPT, 0, &mut cache)?;
    tokens.push(first);
    gpu.synchronize()?;
    let start = Instant::now();
    for i in 0..GENERATED {
        let pos = PROMPT.len() + i;
        let next = step(&tokens[pos..pos + 1], pos, &mut cache)?;
        tokens.push(next);
    }
    gpu.synchronize()?;
    let seconds = start.elapsed().as_secs_f64();
    Ok((hash, tokens[PROMPT.len()..].to_vec(), seconds))
}

fn main() -> candle_core::Result<()> {
    let mut args = std::env::args().skip(1);
    let label = args.next().unwrap_or_else(|| "tree".into());
    let mut dtypes: Vec<String> = args.collect();
    if dtypes.is_empty() {
        dtypes = vec!["f32".into(), "bf16".into(), "f16".into()];
    }
    let gpu = Device::new_cuda(0)?;
    let cfg = config();
    for name in &dtypes {
        let dtype = match name.as_str() {
            "f32" => DType::F32,
            "bf16" => DType::BF16,
            "f16" => DType::F16,
            other => candle_core::bail!("unknown dtype {other}"),
        };
        let vb = VarBuilder::from_tensors(weights(&cfg, dtype, &gpu)?, dtype, &gpu);
        let model = Llama::load(vb, &cfg)?;
        let (hash, tokens, _) = generate(&model, &cfg, dtype, &gpu)?; // warm-up
        let mut times = Vec::new();
        for _ in 0..5 {
            let (again, same_tokens, seconds) = generate(&model, &cfg, dtype, &gpu)?;
            if again != hash || same_tokens != tokens {
                candle_core::bail!("{label} {name}: a second generation gave other logits");
            }
            times.push(seconds);
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let head: Vec<String> = tokens.iter().take(8).map(u32::to_string).collect();
        println!(
            "{label} {name}: logits fnv64 {hash:016x}, tokens {} ..., {:.1} tokens/s (median of 5, \
             {GENERATED} tokens each; fastest {:.1})",
            head.join(" "),
            GENERATED as f64 / median,
            GENERATED as f64 / times[0]
        );
    }
    Ok(())
}
