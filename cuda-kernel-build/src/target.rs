//! The GPU architectures a build targets, chosen as candle's build (cudaforge) chooses them:
//! `CUDA_COMPUTE_CAP`, else the machine's GPUs as `nvidia-smi` lists them, else the crate's
//! default; and what a committed PTX file says made it (its `.target` and nvcc's release).

use std::process::Command;

/// The environment variable naming the compute capabilities to build for: `80`, `8.0`, `sm_90a`,
/// or several, `75,80,90` (PTX for the lowest, and a fatbin with a cubin for each).
pub const COMPUTE_CAP_ENV: &str = "CUDA_COMPUTE_CAP";

/// One compute capability: `75`, `90a` (the suffix of architecture-specific features).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cap {
    pub number: u32,
    pub suffix: Option<char>,
}

impl Cap {
    /// `75`, `7.5`, `sm_75`, `compute_90a`, `90A`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Cap> {
        let text = text.trim().to_ascii_lowercase();
        let text = text
            .strip_prefix("sm_")
            .or_else(|| text.strip_prefix("compute_"))
            .unwrap_or(&text);
        let (digits, suffix) = match text.strip_suffix(['a', 'f']) {
            Some(digits) => (digits, text.chars().last()),
            None => (text, None),
        };
        let number = match digits.split_once('.') {
            Some((major, minor)) if minor.len() == 1 => {
                major.parse::<u32>().ok()? * 10 + minor.parse::<u32>().ok()?
            }
            Some(_) => return None,
            None => digits.parse::<u32>().ok()?,
        };
        // nvcc 13 targets 7.5 and newer; a two-digit number below that is a typo, not a GPU.
        (10..=999)
            .contains(&number)
            .then_some(Cap { number, suffix })
    }

    /// `compute_90a`.
    pub fn virtual_arch(&self) -> String {
        format!("compute_{self}")
    }
}

impl std::fmt::Display for Cap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number)?;
        match self.suffix {
            Some(s) => write!(f, "{s}"),
            None => Ok(()),
        }
    }
}

/// Where a build's architectures came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// `CUDA_COMPUTE_CAP`.
    Environment,
    /// The machine's GPUs (`nvidia-smi`).
    Gpu,
    /// Neither: the crate's default.
    Default,
    /// The build script's [`ptx_arch`](crate::Build::ptx_arch).
    Set,
}

/// The architectures a build targets, lowest first, and where they came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    pub caps: Vec<Cap>,
    pub source: Source,
}

impl Target {
    /// From `CUDA_COMPUTE_CAP`'s value, else `nvidia-smi`'s list, else `default`. An unreadable
    /// `CUDA_COMPUTE_CAP` is an error (a typo must not build for another GPU than asked).
    pub fn choose(env: Option<&str>, gpus: Option<&str>, default: Cap) -> Result<Target, String> {
        if let Some(env) = env.filter(|e| !e.trim().is_empty()) {
            let caps: Option<Vec<Cap>> = env
                .split([',', ';', ' '])
                .filter(|w| !w.trim().is_empty())
                .map(Cap::parse)
                .collect();
            return match caps {
                Some(caps) if !caps.is_empty() => Ok(Target::of(caps, Source::Environment)),
                _ => Err(format!(
                    "{COMPUTE_CAP_ENV}={env:?} is not a compute capability: write it as 80, 8.0, \
                     sm_90a, or several as 75,80,90"
                )),
            };
        }
        // `nvidia-smi --query-gpu=compute_cap --format=csv,noheader`: one line per GPU.
        let found: Vec<Cap> = gpus
            .unwrap_or_default()
            .lines()
            .filter_map(Cap::parse)
            .collect();
        Ok(match found.is_empty() {
            false => Target::of(found, Source::Gpu),
            true => Target::of(vec![default], Source::Default),
        })
    }

    /// The build script's architecture (`compute_80`), where it did not ask the environment.
    pub fn set(arch: &str) -> Target {
        let cap = Cap::parse(arch).unwrap_or(Cap {
            number: 75,
            suffix: None,
        });
        Target::of(vec![cap], Source::Set)
    }

    fn of(mut caps: Vec<Cap>, source: Source) -> Target {
        caps.sort();
        caps.dedup();
        Target { caps, source }
    }

    /// The lowest architecture: the PTX's, which the driver compiles for any newer GPU.
    pub fn lowest(&self) -> &Cap {
        &self.caps[0]
    }

    /// Says where the architectures came from, for messages.
    pub fn origin(&self) -> String {
        let caps: Vec<String> = self.caps.iter().map(Cap::to_string).collect();
        let caps = caps.join(",");
        match self.source {
            Source::Environment => format!("{COMPUTE_CAP_ENV}={caps}"),
            Source::Gpu => format!("this machine's GPU ({caps}, from nvidia-smi)"),
            Source::Default => format!(
                "the crate's default {caps} ({COMPUTE_CAP_ENV} unset, no GPU found by nvidia-smi)"
            ),
            Source::Set => format!("compute_{caps}, as the build script sets it"),
        }
    }
}

/// The compute capabilities of the machine's GPUs, as `nvidia-smi` prints them (`None` without
/// nvidia-smi or a GPU).
pub(crate) fn machine_gpus() -> Option<String> {
    let output = Command::new("nvidia-smi")
        .args(["--query-gpu=compute_cap", "--format=csv,noheader"])
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// What a PTX file says made it: its `.target` (`sm_80`) and the nvcc release in nvcc's header
/// comment (`V13.0.88`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MadeBy {
    pub target: Option<String>,
    pub nvcc: Option<String>,
}

impl MadeBy {
    /// Read from the PTX's first lines (nvcc's comment header, then `.version` and `.target`).
    pub fn read(ptx: &str) -> MadeBy {
        let mut made = MadeBy {
            target: None,
            nvcc: None,
        };
        for line in ptx.lines().take(40) {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("// Cuda compilation tools") {
                made.nvcc = rest.rsplit(", ").next().map(|v| v.trim().to_string());
            } else if let Some(rest) = line.strip_prefix(".target") {
                made.target = rest
                    .split([',', ' ', '\t'])
                    .find(|w| !w.is_empty())
                    .map(str::to_string);
                break;
            }
        }
        made
    }

    /// `sm_80, nvcc V13.0.88`.
    pub fn describe(&self) -> String {
        format!(
            "{}, nvcc {}",
            self.target.as_deref().unwrap_or("no .target"),
            self.nvcc.as_deref().unwrap_or("(release not recorded)")
        )
    }

    /// Whether this PTX can load where the target asks: its `.target` is at most the lowest
    /// architecture asked for (the driver compiles PTX for newer GPUs, never for older ones).
    pub fn loads_on(&self, target: &Target) -> bool {
        let Some(cap) = self.target.as_deref().and_then(Cap::parse) else {
            return true;
        };
        cap.number <= target.lowest().number
            && (cap.suffix.is_none() || target.caps.iter().all(|c| c == &cap))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(text: &str) -> Cap {
        Cap::parse(text).unwrap()
    }

    #[test]
    fn compute_capabilities_read_as_cudaforge_and_nvidia_smi_write_them() {
        for (text, shown) in [
            ("80", "80"),
            ("8.0", "80"),
            ("7.5", "75"),
            ("sm_90a", "90a"),
            ("compute_120f", "120f"),
            (" 90 ", "90"),
            ("90A", "90a"),
        ] {
            assert_eq!(cap(text).to_string(), shown, "{text}");
        }
        for bad in ["", "eighty", "8.", "8.05", "sm_", "7", "a", "9O"] {
            assert_eq!(Cap::parse(bad), None, "{bad:?}");
        }
        assert_eq!(cap("90a").virtual_arch(), "compute_90a");
    }

    #[test]
    fn the_environment_comes_first_then_the_gpus_then_the_default() {
        let default = cap("80");
        let smi = "8.9\n7.5\n8.9\n";
        let chosen = Target::choose(Some("75,90"), Some(smi), default.clone()).unwrap();
        assert_eq!(
            (chosen.caps, chosen.source),
            (vec![cap("75"), cap("90")], Source::Environment)
        );
        let chosen = Target::choose(None, Some(smi), default.clone()).unwrap();
        assert_eq!(
            (chosen.caps.clone(), chosen.source),
            (vec![cap("75"), cap("89")], Source::Gpu)
        );
        assert_eq!(chosen.lowest(), &cap("75"));
        // An empty variable is unset; nvidia-smi without a GPU prints no capability.
        let chosen = Target::choose(Some(" "), Some("No devices were found\n"), default).unwrap();
        assert_eq!(
            (chosen.caps, chosen.source),
            (vec![cap("80")], Source::Default)
        );
        let error = Target::choose(Some("ampere"), None, cap("80")).unwrap_err();
        assert!(error.contains("CUDA_COMPUTE_CAP=\"ampere\""), "{error}");
    }

    #[test]
    fn a_ptx_file_says_what_made_it_and_where_it_loads() {
        let ptx = "//\n// Generated by NVIDIA NVVM Compiler\n//\n// Compiler Build ID: CL-36424714\n\
                   // Cuda compilation tools, release 13.0, V13.0.88\n// Based on NVVM 7.0.1\n\
                   //\n\n.version 9.0\n.target sm_80\n.address_size 64\n";
        let made = MadeBy::read(ptx);
        assert_eq!(made.target.as_deref(), Some("sm_80"));
        assert_eq!(made.nvcc.as_deref(), Some("V13.0.88"));
        assert_eq!(made.describe(), "sm_80, nvcc V13.0.88");
        let at = |e: &str| Target::choose(Some(e), None, cap("80")).unwrap();
        assert!(made.loads_on(&at("80")));
        assert!(made.loads_on(&at("90")));
        assert!(!made.loads_on(&at("75")));
        assert!(!made.loads_on(&at("75,90")));
        let specific = MadeBy::read(".target sm_90a\n");
        assert!(specific.loads_on(&at("90a")));
        assert!(!specific.loads_on(&at("100")));
        assert_eq!(
            MadeBy::read("").describe(),
            "no .target, nvcc (release not recorded)"
        );
    }
}
