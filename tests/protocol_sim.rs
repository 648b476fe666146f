//! The game log over a simulated network of 2–4 phones, with and without
//! faults.

use clovece::protocol::computer::first_legal_move;
use clovece::protocol::sim::{Config, Sim};
use clovece::rules::Seats;

fn seats(n: u8) -> Seats {
    Seats::for_players(n).unwrap()
}

#[test]
fn phones_without_faults_agree_on_the_whole_game() {
    for n in 2..=4 {
        let outcome = Sim::new(Config::new(n as u64, seats(n), first_legal_move))
            .unwrap()
            .run();
        assert!(outcome.converged, "{n} phones: {:?}", outcome.refused);
        assert!(outcome.refused.is_empty(), "{:?}", outcome.refused);
        let first = &outcome.logs[0].1;
        assert!(outcome.logs.iter().all(|(_, log)| log == first));
        eprintln!(
            "{n} phones: {} entries, {:?}, {} ms",
            first.len(),
            outcome.traffic,
            outcome.time
        );
    }
}

#[test]
fn scratch_faults() {
    let base = tempfile::tempdir_in("/dev/shm").unwrap();
    let mut bad = 0;
    let from: u64 = std::env::var("FROM").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let to: u64 = std::env::var("TO").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    for seed in from..to {
        let n = 2 + (seed % 3) as u8;
        let mut config = Config::new(seed, seats(n), first_legal_move);
        config.faults = clovece::protocol::sim::Faults::random(seed);
        let dir = base.path().join(seed.to_string());
        config.dir = Some(dir);
        let faults = config.faults;
        let outcome = Sim::new(config).unwrap().run();
        let len: Vec<usize> = outcome.logs.iter().map(|(_, l)| l.len()).collect();
        if !outcome.converged || !outcome.refused.is_empty() { eprintln!("seed {seed} n {n} {:?} converged {} lens {:?} time {} refused {:?} results {:?}", faults, outcome.converged, len, outcome.time, outcome.refused, outcome.results.iter().map(|(_, r)| r.as_ref().map(|r| (r.end, r.absences, r.withheld))).collect::<Vec<_>>()); }
        if !outcome.converged { bad += 1; }
    }
    assert_eq!(bad, 0);
}

#[test]
fn scratch_one() {
    let base = tempfile::tempdir_in("/dev/shm").unwrap();
    let seed: u64 = std::env::var("SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(8);
    let n = 2 + (seed % 3) as u8;
    let mut config = Config::new(seed, seats(n), first_legal_move);
    config.faults = clovece::protocol::sim::Faults::random(seed);
    config.dir = Some(base.path().to_owned());
    config.limit = 600_000;
    let outcome = Sim::new(config).unwrap().run();
    for (c, s) in &outcome.states {
        eprintln!("{c}: due {:?} present {:?} returning {:?} controls {:?}", s.due(), s.present(), s.returning(), clovece::rules::Colour::ALL.map(|c| s.control(c)));
    }
    eprintln!("{:?}", outcome.refused);
}
