//! The rules engine's speed: legal-move generation, applying a move, and
//! whole random 4-player playouts (figures in docs/performance.md).

use std::hint::black_box;

use clovece::bench::{random_playout, roll};
use clovece::rules::classic::{Game, Phase, Position};
use clovece::rules::{Colour, Die, HouseRules, Seats};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

/// Mid-game positions taken from random games, each with a roll.
fn sample_positions(house: HouseRules) -> Vec<(Position, Die)> {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let seats = Seats::for_players(4).unwrap();
    let mut out = Vec::new();
    while out.len() < 1024 {
        let mut game = Game::new(house, Position::start(seats, Colour::Red).unwrap());
        while game.phase() != Phase::Won {
            match game.phase() {
                Phase::Roll { .. } => {
                    let die = roll(&mut rng);
                    out.push((*game.position(), die));
                    let _ = game.roll(die);
                }
                _ => {
                    let mv = game.legal_moves().get(0).unwrap();
                    let _ = game.play(mv);
                }
            }
        }
    }
    out
}

fn engine(c: &mut Criterion) {
    for (name, house) in [
        ("default", HouseRules::default()),
        (
            "all house rules",
            HouseRules {
                compulsory_capture: true,
                optional_bring_out: true,
                no_jump_home: true,
            },
        ),
    ] {
        // Each iteration walks all the sample positions, so the indexing
        // costs no division and criterion reports the time per call.
        let positions = sample_positions(house);
        let mut group = c.benchmark_group(format!("per call ({name})"));
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.bench_function("legal_moves", |b| {
            b.iter(|| {
                for (p, d) in &positions {
                    black_box(black_box(p).legal_moves(house, *d));
                }
            })
        });
        let with_moves: Vec<_> = positions
            .iter()
            .filter_map(|(p, d)| p.legal_moves(house, *d).get(0).map(|m| (*p, m)))
            .collect();
        group.throughput(Throughput::Elements(with_moves.len() as u64));
        group.bench_function("apply", |b| {
            b.iter(|| {
                for &(p, m) in &with_moves {
                    let mut p = black_box(p);
                    black_box(p.apply(m));
                    black_box(p);
                }
            })
        });
        group.finish();
    }
    c.bench_function("random 4-player playout", |b| {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let seats = Seats::for_players(4).unwrap();
        b.iter(|| {
            black_box(random_playout(
                black_box(HouseRules::default()),
                seats,
                &mut rng,
            ))
        })
    });
}

criterion_group!(benches, engine);
criterion_main!(benches);
