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
