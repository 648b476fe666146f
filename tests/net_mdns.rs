//! mDNS discovery between two Linux network namespaces joined by a veth
//! pair, which the test creates and deletes. libp2p-mdns ignores loopback,
//! so this is the only way to see real discovery on one machine. Every
//! process that sends runs inside a namespace, on addresses from the
//! documentation range 192.0.2.0/24 that exist only there, so no multicast
//! leaves the machine's real interfaces.
//!
//! Needs root and `ip netns` (CI has both); elsewhere the test says why it
//! is skipped and passes. It prints the time from a phone's start to its
//! discovery (docs/performance.md).

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_clovece");

/// Namespaces that are deleted (with their veth ends) when dropped.
struct Namespaces(Vec<String>);

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
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Two namespaces, `192.0.2.1` and `192.0.2.2`, joined by a veth pair.
fn pair() -> Result<Namespaces, String> {
    let id = std::process::id();
    let names = [format!("clovece-{id}-a"), format!("clovece-{id}-b")];
    let mut made = Namespaces(Vec::new());
    for name in &names {
        ip(&["netns", "add", name])?;
        made.0.push(name.clone());
    }
    let (a, b) = (names[0].as_str(), names[1].as_str());
    // Both ends are made inside the namespaces: nothing appears, even for a
    // moment, in the machine's own namespace.
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

struct Nearby {
    child: Child,
    lines: std::io::Lines<BufReader<ChildStdout>>,
}

impl Nearby {
    fn start(ns: &str, data: &std::path::Path, addr: &str) -> Nearby {
        let mut child = Command::new("ip")
            .args([
                "netns",
                "exec",
                ns,
                BIN,
                "nearby",
                "--count",
                "1",
                "--seconds",
                "10",
            ])
            .arg("--data")
            .arg(data)
            .args(["--listen", &format!("/ip4/{addr}/tcp/0")])
            .stdout(Stdio::piped())
            .spawn()
            .expect("clovece starts");
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Nearby { child, lines }
    }

    /// The value of the next line starting with `key: `.
    fn line(&mut self, key: &str) -> String {
        for line in self.lines.by_ref() {
            let line = line.expect("readable output");
            if let Some(value) = line.strip_prefix(&format!("{key}: ")) {
                return value.to_owned();
            }
        }
        panic!("clovece nearby ended without a {key:?} line");
    }

    fn finish(mut self) {
        assert!(self.child.wait().unwrap().success());
    }
}

fn now_micros() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros()
}

fn micros(value: &str) -> u128 {
    value.parse().expect("a timestamp")
}

#[test]
fn phones_in_two_namespaces_discover_each_other_by_mdns() {
    if !cfg!(target_os = "linux") {
        eprintln!("skipping: network namespaces are Linux only");
        return;
    }
    let namespaces = match pair() {
        Ok(ns) => ns,
        Err(why) => {
            eprintln!("skipping the mDNS namespace test (needs root and `ip netns`): {why}");
            return;
        }
    };
    let (a_ns, b_ns) = (namespaces.0[0].clone(), namespaces.0[1].clone());
    let data = tempfile::tempdir().unwrap();
    for round in 0..3 {
        let mut a = Nearby::start(&a_ns, &data.path().join("a"), "192.0.2.1");
        let a_id = a.line("id");
        a.line("started");
        // b starts once a is up: a discovers a phone that appears.
        let spawned = now_micros();
        let mut b = Nearby::start(&b_ns, &data.path().join("b"), "192.0.2.2");
        let b_id = b.line("id");
        let b_started = micros(&b.line("started"));
        let found_by_a = a.line("found");
        let found_by_b = b.line("found");
        let (peer, at) = found_by_a.split_once(' ').unwrap();
        assert_eq!(peer, b_id);
        let a_saw_b = micros(at).saturating_sub(b_started);
        let (peer, at) = found_by_b.split_once(' ').unwrap();
        assert_eq!(peer, a_id);
        let b_saw_a = micros(at).saturating_sub(b_started);
        eprintln!(
            "round {round}: from b's node start, a found b after {:.1} ms, b found a after {:.1} ms \
             (b's process took {:.1} ms to start its node)",
            a_saw_b as f64 / 1000.0,
            b_saw_a as f64 / 1000.0,
            b_started.saturating_sub(spawned) as f64 / 1000.0
        );
        a.finish();
        b.finish();
    }
}
