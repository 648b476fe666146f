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

mod netns;
mod process;

use process::{Proc, in_namespace};

/// `clovece nearby` until it finds one phone (at most 10 s), inside the
/// namespace `ns` on `addr`.
fn nearby(ns: &str, data: &std::path::Path, addr: &str) -> Proc {
    in_namespace(
        ns,
        addr,
        data,
        &["nearby", "--count", "1", "--seconds", "10"],
    )
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
    let Some(namespaces) = netns::pair_or_skip("mdns", "the mDNS namespace test") else {
        return;
    };
    let (a_ns, b_ns) = namespaces.names();
    let data = tempfile::tempdir().unwrap();
    for round in 0..3 {
        let mut a = nearby(a_ns, &data.path().join("a"), "192.0.2.1");
        let a_id = a.wait_for("id: ");
        a.wait_for("started: ");
        // b starts once a is up: a discovers a phone that appears.
        let spawned = now_micros();
        let mut b = nearby(b_ns, &data.path().join("b"), "192.0.2.2");
        let b_id = b.wait_for("id: ");
        let b_started = micros(&b.wait_for("started: "));
        let found_by_a = a.wait_for("found: ");
        let found_by_b = b.wait_for("found: ");
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
