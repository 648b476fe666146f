//! What the learnt evaluation sees of a classic position: for each seated
//! colour, a short vector of small integers describing its pieces and the
//! threats around them, from that colour's point of view (its place in the
//! turn order included). The trainer (`bot::train`) and the hard player's
//! evaluation ([`super::learnt`]) read the same vectors, so the weights the
//! one finds are the weights the other applies.
//!
//! Features are integers so that the evaluation stays in integer arithmetic;
//! [`SCALE`] says what each is divided by to be of order one, which only the
//! trainer uses.

use super::board::{Board, LAST_TRACK, square};
use super::race::{Race, TURN};
use super::reach::{CERTAIN, ONE_IN_SIX, Reach};
use crate::rules::Colour;
use crate::rules::classic::Game;

/// Track regions of [`REGION_LEN`] squares of progress each.
const REGIONS: usize = 10;
const REGION_LEN: u8 = LAST_TRACK / REGIONS as u8;

/// Where each group of features starts.
const WAITING: usize = 0;
const IN_BASE: usize = WAITING + 4;
const AT_HOME: usize = IN_BASE + 5;
const REGION: usize = AT_HOME + 5;
/// The race table's turns (the trainer starts from a weight on it).
pub const RACE: usize = REGION + REGIONS;
const LOSS: usize = RACE + 1;
const HIT: usize = LOSS + 1;
const IN_DANGER: usize = HIT + 1;
const EXPOSURE: usize = IN_DANGER + 1;
const THREAT: usize = EXPOSURE + 1;
const TARGETS: usize = THREAT + 1;
const BLOCKING: usize = TARGETS + 1;

/// How many features a colour has.
pub const COUNT: usize = BLOCKING + 1;

/// One colour's features.
pub type Vector = [i32; COUNT];

/// Race turns are counted in sixteenths of a turn.
const SIXTEENTH: i64 = TURN / 16;

/// What each feature is divided by to be of order one (the trainer's
/// inputs); the quantised weights absorb it.
pub const SCALE: [i32; COUNT] = {
    let mut scale = [1; COUNT];
    scale[RACE] = 16 * 10;
    scale[LOSS] = CERTAIN * 16;
    scale[HIT] = CERTAIN;
    scale[EXPOSURE] = 1000;
    scale[THREAT] = CERTAIN * 40;
    scale
};

/// The name of each feature, for the generated weights file.
pub fn name(i: usize) -> String {
    match i {
        _ if i < IN_BASE => format!("{} seats until it acts", i - WAITING),
        _ if i < AT_HOME => format!("{} pieces in base", i - IN_BASE),
        _ if i < REGION => format!("{} pieces home", i - AT_HOME),
        _ if i < RACE => {
            let from = (i - REGION) as u8 * REGION_LEN + 1;
            format!("pieces on progress {from}..={}", from + REGION_LEN - 1)
        }
        RACE => "race table, 16ths of a turn".into(),
        LOSS => "expected capture loss, 216ths x 16ths of a turn".into(),
        HIT => "sum of hit chances, 216ths".into(),
        IN_DANGER => "pieces hit at least 1 time in 6".into(),
        EXPOSURE => "sum of (41 - p)(p + 8)".into(),
        THREAT => "opponent progress in reach, 216ths x squares".into(),
        TARGETS => "opponent pieces in reach at least 1 time in 6".into(),
        BLOCKING => "own start square blocked with pieces in base".into(),
        _ => String::new(),
    }
}

/// The features of every seated colour of `game`, indexed by
/// [`Colour::index`] (zeros for colours not seated).
pub fn of(game: &Game) -> [Vector; 4] {
    let position = game.position();
    read(
        game,
        &Board::new(position),
        &Reach::new(position, game.house()),
    )
}

/// [`of`], with the position's board and reach already worked out.
pub fn read(game: &Game, board: &Board, reach: &Reach) -> [Vector; 4] {
    let position = game.position();
    let seats = position.seats();
    let race = Race::get(game.house());
    let mut out = [[0; COUNT]; 4];
    let mut colour = position.turn();
    for waiting in 0..seats.len() {
        out[colour.index()] = colour_features(board, reach, race, seats.iter(), colour, waiting);
        colour = seats.after(colour);
    }
    out
}

/// The features of `colour`, which acts after `waiting` other colours.
fn colour_features(
    board: &Board,
    reach: &Reach,
    race: &Race,
    seats: impl Iterator<Item = Colour>,
    colour: Colour,
    waiting: usize,
) -> Vector {
    let mut f = [0; COUNT];
    let spots = board.pieces(colour);
    let turns = race.turns(spots);
    f[WAITING + waiting] = 1;
    f[IN_BASE + spots.iter().filter(|&&s| s == 0).count()] = 1;
    f[AT_HOME + spots.iter().filter(|&&s| s > LAST_TRACK).count()] = 1;
    f[RACE] = (turns / SIXTEENTH) as i32;
    for (i, &spot) in spots.iter().enumerate() {
        if !(1..=LAST_TRACK).contains(&spot) {
            continue;
        }
        f[REGION + usize::from((spot - 1) / REGION_LEN)] += 1;
        let hit = reach.hit_chance(colour, square(colour, spot));
        let mut captured = spots;
        captured[i] = 0;
        let loss = (race.turns(captured) - turns) / SIXTEENTH;
        f[LOSS] += hit * loss as i32;
        f[HIT] += hit;
        f[IN_DANGER] += i32::from(hit >= ONE_IN_SIX);
        let p = i32::from(spot);
        f[EXPOSURE] += (41 - p) * (p + 8);
    }
    for victim in seats.filter(|&c| c != colour) {
        for spot in board.on_track(victim) {
            let chance = reach.reach(colour, square(victim, spot));
            f[THREAT] += chance * i32::from(spot);
            f[TARGETS] += i32::from(chance >= ONE_IN_SIX);
        }
    }
    f[BLOCKING] = i32::from(board.in_base(colour) && spots.contains(&1));
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::classic::{HouseRules, Position};
    use crate::rules::{Place, Seats};

    #[test]
    fn every_feature_has_a_name_and_a_scale() {
        for (i, &scale) in SCALE.iter().enumerate() {
            assert!(!name(i).is_empty(), "{i}");
            assert!(scale > 0, "{i}");
        }
    }

    #[test]
    fn a_threatened_piece_counts_its_danger_and_its_attacker_the_threat() {
        // Red on T5 (progress 6), green's piece 4 squares behind it on T1
        // (green's progress 22), nobody in base.
        let seats = Seats::from_colours(&[Colour::Red, Colour::Green]).unwrap();
        let places = |s: [&str; 4]| s.iter().map(|p| p.parse::<Place>().unwrap()).collect();
        let pieces = [
            (Colour::Red, places(["T5", "H4", "H3", "H2"])),
            (Colour::Green, places(["T1", "H4", "H3", "H2"])),
        ];
        let position = Position::new(seats, Colour::Red, &pieces).unwrap();
        let game = Game::new(HouseRules::default(), position);
        let f = of(&game);
        let (red, green) = (f[Colour::Red.index()], f[Colour::Green.index()]);
        assert_eq!(red[WAITING], 1);
        assert_eq!(green[WAITING + 1], 1);
        assert_eq!(red[AT_HOME + 3], 1);
        assert_eq!(red[IN_BASE], 1);
        assert_eq!(red[REGION + 1], 1, "progress 6 is in the second region");
        assert_eq!(red[HIT], ONE_IN_SIX);
        assert_eq!(red[IN_DANGER], 1);
        assert_eq!(
            green[THREAT],
            ONE_IN_SIX * 6,
            "a one-in-six reach of red's progress 6"
        );
        assert_eq!(green[TARGETS], 1);
        assert_eq!(red[TARGETS], 0);
        assert_eq!(red[EXPOSURE], (41 - 6) * (6 + 8));
    }
}
