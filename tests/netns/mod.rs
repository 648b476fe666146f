//! Two Linux network namespaces joined by a veth pair, for the tests that
//! need real mDNS (libp2p-mdns ignores loopback). Both veth ends are made
//! inside the namespaces, on documentation addresses (`192.0.2.1` and
//! `192.0.2.2`) that exist only there, so nothing appears, even for a
//! moment, in the machine's own namespace and no multicast leaves it.

use std::process::Command;

/// The namespaces made so far; deleted (with their veth ends) on drop.
pub struct Namespaces(Vec<String>);

impl Namespaces {
    /// The two namespaces' names.
    pub fn names(&self) -> (&str, &str) {
        (&self.0[0], &self.0[1])
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for name in &self.0 {
            let _ = Command::new("ip").args(["netns", "del", name]).status();
        }
    }
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run ip: {e}"))?;
    out.status.success().then_some(()).ok_or_else(|| {
        format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })
}

/// [`pair`] for the test `what`, or `None` after saying why it is skipped
/// (not Linux, no root, no `ip netns`). Where `CLOVECE_REQUIRE_NETNS` is
/// set (`.ci/run` sets it on a machine that can make namespaces), a skip
/// is a failure: these tests would otherwise pass without running.
pub fn pair_or_skip(tag: &str, what: &str) -> Option<Namespaces> {
    let made = if cfg!(target_os = "linux") {
        pair(tag)
    } else {
        Err("network namespaces are Linux only".to_owned())
    };
    match made {
        Ok(namespaces) => Some(namespaces),
        Err(why) if std::env::var_os("CLOVECE_REQUIRE_NETNS").is_some() => {
            panic!("{what} needs network namespaces, which CLOVECE_REQUIRE_NETNS requires: {why}")
        }
        Err(why) => {
            eprintln!("skipping {what} (needs root and `ip netns`): {why}");
            None
        }
    }
}

/// Two namespaces named `clovece-<tag>-<pid>-a/b`, `192.0.2.1` and
/// `192.0.2.2`, joined by a veth pair; an error (no root, no `ip netns`)
/// says why they cannot be made.
pub fn pair(tag: &str) -> Result<Namespaces, String> {
    let id = std::process::id();
    let names = [
        format!("clovece-{tag}-{id}-a"),
        format!("clovece-{tag}-{id}-b"),
    ];
    let mut made = Namespaces(Vec::new());
    for name in &names {
        ip(&["netns", "add", name])?;
        made.0.push(name.clone());
    }
    let (a, b) = made.names();
    ip(&[
        "-n", a, "link", "add", "va", "type", "veth", "peer", "name", "vb", "netns", b,
    ])?;
    for (ns, dev, addr) in [(a, "va", "192.0.2.1/24"), (b, "vb", "192.0.2.2/24")] {
        ip(&["-n", ns, "link", "set", "lo", "up"])?;
        ip(&["-n", ns, "addr", "add", addr, "dev", dev])?;
        ip(&["-n", ns, "link", "set", dev, "up"])?;
        ip(&["-n", ns, "route", "add", "224.0.0.0/4", "dev", dev])?;
    }
    Ok(made)
}
