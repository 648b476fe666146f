//! The dice: uniform, and unknowable while one reveal is missing.

use clovece::protocol::{DiceChain, DiceSecret, Digest, Reveals, Throw};
use clovece::rules::Colour;

/// The chi-square statistic of `counts` against equal expected counts.
fn chi_square(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum()
}

/// The chi-square value that a uniform die exceeds with probability 0.001,
/// for 5 degrees of freedom.
const CHI_SQUARE_5_P001: f64 = 20.515;

fn chains(rolls: u32) -> Vec<(Colour, DiceChain)> {
    Colour::ALL
        .into_iter()
        .map(|c| {
            let secret = DiceSecret::from_bytes([c.index() as u8 + 40; 32]);
            (c, DiceChain::new(&secret, rolls))
        })
        .collect()
}

fn reveals(chains: &[(Colour, DiceChain)], roll: u32) -> Reveals {
    let mut reveals = Reveals::default();
    for (colour, chain) in chains {
        reveals.set(*colour, chain.reveal(roll).unwrap());
    }
    reveals
}

#[test]
fn dice_are_uniform_over_60000_rolls() {
    let rolls = 60_000;
    let chains = chains(rolls);
    let game = Digest([3; 32]);
    let mut counts = [0u64; 6];
    for roll in 1..=rolls {
        let die = Throw::new(&game, roll, &reveals(&chains, roll)).die();
        counts[die.get() as usize - 1] += 1;
    }
    let chi = chi_square(&counts);
    assert!(
        chi < CHI_SQUARE_5_P001,
        "chi-square {chi:.2} for {counts:?}"
    );
}

#[test]
fn the_first_player_draw_is_uniform() {
    let game = Digest([4; 32]);
    let chains = chains(6_000);
    for players in 2..=4u32 {
        let mut counts = vec![0u64; players as usize];
        for roll in 1..=6_000 {
            counts[Throw::new(&game, roll, &reveals(&chains, roll)).below(players) as usize] += 1;
        }
        // 0.001 critical values for 1, 2 and 3 degrees of freedom.
        let limit = [10.828, 13.816, 16.266][players as usize - 2];
        let chi = chi_square(&counts);
        assert!(chi < limit, "{players} players: chi-square {chi:.2}");
    }
}

/// A phone holding every reveal of a roll but one learns nothing about the
/// die: over the values the missing reveal could take, every face is
/// equally likely.
#[test]
fn all_reveals_but_one_cannot_compute_the_roll() {
    let chains = chains(10);
    let game = Digest([5; 32]);
    let roll = 7;
    let known = reveals(&chains, roll);
    let mut counts = [0u64; 6];
    for guess in 0..60_000u32 {
        let mut candidate = known;
        let mut bytes = [0u8; 32];
        bytes[..4].copy_from_slice(&guess.to_le_bytes());
        candidate.set(Colour::Yellow, Digest(bytes));
        counts[Throw::new(&game, roll, &candidate).die().get() as usize - 1] += 1;
    }
    let chi = chi_square(&counts);
    assert!(
        chi < CHI_SQUARE_5_P001,
        "chi-square {chi:.2} for {counts:?}"
    );
}

#[test]
fn the_roll_history_and_dice_statistics_come_from_the_log() {
    use clovece::protocol::sim::{Config, Table};
    use clovece::rules::{FirstPlayer, Seats};

    let mut config = Config::new(3, Seats::for_players(3).unwrap());
    config.first = FirstPlayer::Random;
    config.computers = clovece::protocol::Colours::one(Colour::Blue);
    let mut table = Table::new(&config).unwrap();
    while table.step() {}
    let log = table.log();
    let history: Vec<_> = log.rolls().collect();
    // Every roll but the draw of the first player, numbered in order.
    assert_eq!(history.len() as u32, log.state().rolls() - 1);
    assert!(history.windows(2).all(|w| w[1].roll == w[0].roll + 1));
    assert!(
        history
            .iter()
            .all(|r| r.by_computer == (r.seat == Colour::Blue))
    );
    // The dice statistics count the players' own rolls, not the
    // computer's.
    let counts = log.dice_counts();
    let total: u32 = counts.iter().flatten().sum();
    let own = history.iter().filter(|r| !r.by_computer).count();
    assert_eq!(total as usize, own);
    assert!(own < history.len());
    assert_eq!(counts[Colour::Blue.index()], [0; 6]);
    assert_eq!(counts[Colour::Yellow.index()], [0; 6]);
}

/// The dice every phone derives from the same reveals, pinned to what
/// this build derives: a change here makes phones of two builds disagree
/// about every roll, so it must come with a new `PROTOCOL_VERSION` (phones
/// of different versions then refuse to play together).
#[test]
fn the_dice_of_given_reveals_are_pinned() {
    let chains = chains(40);
    let game = Digest([7; 32]);
    let commitments: Vec<_> = chains
        .iter()
        .map(|(_, c)| c.commitment().to_string())
        .collect();
    // Every roll of four players present; the first eight also with
    // yellow absent (its place hashed as missing), drawn among three.
    let throws: Vec<Throw> = (1..=40)
        .map(|roll| Throw::new(&game, roll, &reveals(&chains, roll)))
        .collect();
    let without_yellow: Vec<Throw> = (1..=8)
        .map(|roll| Throw::new(&game, roll, &reveals(&chains[..3], roll)))
        .collect();
    let faces = |throws: &[Throw]| throws.iter().map(|t| t.die().to_string()).collect();
    let draws = |throws: &[Throw], n| throws.iter().take(8).map(|t| t.below(n)).collect();
    let pinned: (u16, Vec<&str>, String, Vec<u32>, String, Vec<u32>) = (
        clovece::protocol::header::PROTOCOL_VERSION,
        commitments.iter().map(String::as_str).collect(),
        faces(&throws),
        draws(&throws, 4),
        faces(&without_yellow),
        draws(&without_yellow, 3),
    );
    assert_eq!(
        pinned,
        (
            8,
            vec!["b2a59d71", "c1561cfe", "c8279b53", "fdd8dfba"],
            "5543441636365431244221336453141222261631".to_owned(),
            vec![0, 2, 3, 2, 3, 3, 0, 3],
            "55111566".to_owned(),
            vec![1, 1, 0, 0, 0, 1, 2, 2],
        ),
        "the dice changed: bump PROTOCOL_VERSION and pin the new values"
    );
}
