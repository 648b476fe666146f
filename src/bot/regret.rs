//! How much a player's moves lose against the best move by full-game
//! Monte-Carlo rollouts: a yardstick for the hard player, not a player
//! (docs/bots.md, "How much is left to gain").
//!
//! A player is followed through games against a line-up of opponents. At
//! each of its decisions (two or more legal moves) every legal move is
//! played out to the end of the game many times, every colour continuing
//! as a model of its player (the audited colour greedily by the hard
//! player's evaluation, the opponents as random or medium players), and
//! the move that won most often is compared with the player's own. Two
//! independent sets of rollouts keep the comparison honest: the first
//! picks the rollouts' best move, the second measures how much more it wins
//! than the player's move. Picking and measuring on one set would count the
//! luck of the pick as a gain.
//!
//! Summed over a game's decisions, that gain estimates how much one step
//! of policy improvement (Tesauro and Galperin's rollouts with a perfect
//! model of the opponents) would add to the player's win rate.
//!
//! Common random numbers: every candidate move of one rollout meets the
//! same dice, a row of faces per turn, so the comparison sees what the
//! moves change rather than the dice.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;

use super::playable::Playable;
use super::tournament::in_parallel;
use super::{Level, Player, seeded};
use crate::rules::{Colour, Die, Game, Move, Next, RuleSet, Seats};

/// Rolls of one turn drawn together; a longer run of sixes draws more.
const ROLLS_PER_TURN: usize = 8;
/// The set of rollouts that picks the best move, and the one that measures
/// it against the player's.
const PICK: u64 = 2;
const MEASURE: u64 = 3;
/// Turns after which a rollout counts as lost (no real game comes near).
const MAX_TURNS: usize = 10_000;

/// What to audit.
#[derive(Clone, Debug)]
pub struct Audit {
    pub rules: RuleSet,
    /// The audited player, in every game against three (or `seats - 1`)
    /// `opponents`.
    pub player: Player,
    pub opponents: Player,
    /// How the picking set models the opponents, if not as they play: to
    /// see how much of the gain needs their play known exactly.
    pub believed: Option<Player>,
    pub seats: u8,
    /// Games whose every decision of the player is audited.
    pub games: u32,
    /// Rollouts of each legal move, in each of the two sets.
    pub rollouts: u32,
    pub seed: u64,
    /// Worker threads (at least one is used); the report does not depend
    /// on it.
    pub threads: usize,
}

/// What an audit found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Decisions audited (two or more legal moves).
    pub decisions: u32,
    /// Per game, the sum over its decisions of the measuring set's win
    /// rate of the rollouts' pick less that of the player's move.
    pub gains: Vec<f64>,
    /// The decisions where the rollouts picked another move, in game
    /// order: to see where the gain comes from.
    pub differences: Vec<Difference>,
}

/// A decision where the rollouts' pick differs from the player's move.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The game's index.
    pub game: u32,
    /// The game at the decision.
    pub before: Game,
    /// The rollouts' pick and the player's move.
    pub pick: Move,
    pub played: Move,
    /// The measuring set's win rate of the pick less that of the move.
    pub gain: f64,
}

/// How a colour plays on in a rollout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Model {
    /// A uniformly random legal move.
    Random,
    /// The medium player's rule of thumb.
    Medium,
    /// The move to the position the hard player's evaluation rates best.
    Greedy,
}

impl Model {
    /// The model of `player`: random and medium players exactly, any
    /// other as the greedy use of the hard player's evaluation.
    fn of(player: Player) -> Model {
        match player {
            Player::Random => Model::Random,
            Player::Bot(Level::Medium) => Model::Medium,
            _ => Model::Greedy,
        }
    }
}

impl Audit {
    /// Plays the games and audits the player's decisions in them.
    pub fn run(&self) -> Option<Report> {
        let seats = Seats::for_players(self.seats)?;
        let games = in_parallel(self.games, self.threads, |g| self.audit_game(seats, g));
        let mut report = Report::default();
        for game in games {
            let game = game?;
            report.decisions += game.decisions;
            report
                .gains
                .push(game.differences.iter().fold(0.0, |sum, d| sum + d.gain));
            report.differences.extend(game.differences);
        }
        Some(report)
    }

    /// Audits game `g`, where the player sits on the `g mod n`-th colour.
    fn audit_game(&self, seats: Seats, g: u32) -> Option<GameAudit> {
        let mine = seats.iter().nth(g as usize % seats.len())?;
        let mut audit = GameAudit::default();
        // Game `g`'s stream 0 is its dice, stream 1 its players' seeds.
        let mut dice = seeded::keyed(self.seed, g, 0);
        let mut seeds = seeded::keyed(self.seed, g, 1);
        let mut game = Game::new(self.rules, seats, Colour::Red)?;
        let exact = models(seats, mine, self.opponents);
        let believed = models(seats, mine, self.believed.unwrap_or(self.opponents));
        loop {
            match game.next() {
                Next::Won { .. } => return Some(audit),
                Next::Roll { .. } => {
                    game.roll(seeded::die(&mut dice)).ok()?;
                }
                Next::Move { seat } => {
                    let seed = seeds.next_u64();
                    let player = if seat == mine {
                        self.player
                    } else {
                        self.opponents
                    };
                    let mv = player.choose(&game, seed)?;
                    let moves = game.legal_moves();
                    if seat == mine && moves.len() > 1 {
                        let chosen = moves.iter().position(|&m| m == mv)?;
                        let set = |models, set| Rollouts {
                            models,
                            count: self.rollouts,
                            seed,
                            set,
                        };
                        let all: Vec<usize> = (0..moves.len()).collect();
                        let picking = wins_of(&game, &all, set(&believed, PICK));
                        // The picking set's best, the earliest of equals.
                        let best = (0..moves.len()).rev().max_by_key(|&i| picking[i])?;
                        audit.decisions += 1;
                        if best != chosen {
                            let pair = [best, chosen];
                            let w = wins_of(&game, &pair, set(&exact, MEASURE));
                            let wins = f64::from(w[0]) - f64::from(w[1]);
                            audit.differences.push(Difference {
                                game: g,
                                before: game,
                                pick: *moves.get(best)?,
                                played: mv,
                                gain: wins / f64::from(self.rollouts),
                            });
                        }
                    }
                    game.play(mv).ok()?;
                }
            }
        }
    }
}

/// Each colour's model in the rollouts of a game where `mine` is the
/// audited colour and the others play as `opponents`.
fn models(seats: Seats, mine: Colour, opponents: Player) -> [Model; 4] {
    let mut models = [Model::Greedy; 4];
    for c in seats.iter().filter(|&c| c != mine) {
        models[c.index()] = Model::of(opponents);
    }
    models
}

/// One game's audit.
#[derive(Default)]
struct GameAudit {
    decisions: u32,
    differences: Vec<Difference>,
}

impl Report {
    /// The mean gain per game and its 95% interval's half width.
    pub fn gain(&self) -> (f64, f64) {
        let n = self.gains.len() as f64;
        if n < 2.0 {
            return (self.gains.first().copied().unwrap_or(0.0), f64::INFINITY);
        }
        let mean = self.gains.iter().sum::<f64>() / n;
        let var = self.gains.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, 1.96 * (var / n).sqrt())
    }

    /// Audited decisions per game.
    pub fn per_game(&self) -> f64 {
        f64::from(self.decisions) / self.gains.len().max(1) as f64
    }
}

/// One set of rollouts of a decision.
#[derive(Clone, Copy)]
struct Rollouts<'a> {
    /// How each colour plays on.
    models: &'a [Model; 4],
    /// Rollouts of each candidate move.
    count: u32,
    /// The decision's seed.
    seed: u64,
    /// Which set: sets draw apart from each other.
    set: u64,
}

/// Wins, for the colour to move, of the legal moves of `game` at
/// `candidates` (indices into its legal moves) over the `rollouts`.
fn wins_of(game: &Game, candidates: &[usize], rollouts: Rollouts) -> Vec<u32> {
    match game {
        Game::Classic(g) => wins(g, candidates, rollouts),
        Game::Matfyz(g) => wins(g, candidates, rollouts),
    }
}

fn wins<G: Playable>(game: &G, candidates: &[usize], rollouts: Rollouts) -> Vec<u32> {
    let Rollouts {
        models,
        count,
        seed,
        set,
    } = rollouts;
    let legal: Vec<G::Move> = game.moves().collect();
    let moves: Vec<Option<G::Move>> = candidates.iter().map(|&i| legal.get(i).copied()).collect();
    let mut wins = vec![0; candidates.len()];
    let Next::Move { seat } = game.next() else {
        return wins;
    };
    for k in 0..count {
        // Each set's dice and random players' choices are streams of their
        // own; every candidate meets the same of both.
        let mut dice = Dice::new(seeded::keyed(seed, k, 2 * set));
        for (w, mv) in wins.iter_mut().zip(&moves) {
            let Some(mv) = *mv else { continue };
            let mut choices = seeded::keyed(seed, k, 2 * set + 1);
            let mut after = *game;
            if after.play(mv)
                && play_out(after, seat, models, &mut dice, &mut choices) == Some(seat)
            {
                *w += 1;
            }
        }
    }
    wins
}

/// One rollout's dice: a row of faces for each turn, drawn as the first
/// continuation reaches it and replayed for the others.
struct Dice {
    rng: ChaCha8Rng,
    turns: Vec<Vec<Die>>,
}

impl Dice {
    fn new(rng: ChaCha8Rng) -> Dice {
        Dice {
            rng,
            turns: Vec::new(),
        }
    }

    /// The face of roll `roll` (from 0) of turn `turn` (from 0). A run of
    /// sixes longer than a row draws on: taking the row again from its
    /// first face would never end a Matfyz turn of eight sixes, where a
    /// six moves nothing.
    fn face(&mut self, turn: usize, roll: usize) -> Die {
        while self.turns.len() <= turn {
            let row = (0..ROLLS_PER_TURN)
                .map(|_| seeded::die(&mut self.rng))
                .collect();
            self.turns.push(row);
        }
        let row = &mut self.turns[turn];
        while row.len() <= roll {
            row.push(seeded::die(&mut self.rng));
        }
        row[roll]
    }
}

/// Plays `game` to its end, each colour by its model, with `dice` counting
/// turns from one of `first`'s (so that turn `t` is always the same
/// colour's); the winner, `None` if the game runs past [`MAX_TURNS`].
fn play_out<G: Playable>(
    mut game: G,
    first: Colour,
    models: &[Model; 4],
    dice: &mut Dice,
    choices: &mut ChaCha8Rng,
) -> Option<Colour> {
    let (mut turn, mut roll, mut roller) = (0, 0, first);
    loop {
        match game.next() {
            Next::Won { winner } => return Some(winner),
            Next::Roll { seat: next, .. } => {
                if next != roller {
                    (turn, roll, roller) = (turn + 1, 0, next);
                    if turn > MAX_TURNS {
                        return None;
                    }
                }
                game.roll(dice.face(turn, roll));
                roll += 1;
            }
            Next::Move { seat: mover } => {
                game = step(&game, mover, models[mover.index()], choices)?;
            }
        }
    }
}

/// The game after `mover` plays as `model` would, the first of equals.
fn step<G: Playable>(game: &G, mover: Colour, model: Model, choices: &mut ChaCha8Rng) -> Option<G> {
    let moves: Vec<G::Move> = game.moves().collect();
    let pick = match model {
        Model::Random => seeded::below(choices, moves.len()),
        Model::Medium => {
            let scores = moves.iter().map(|&mv| game.rate(mv));
            first_max(scores)?
        }
        Model::Greedy => {
            let values = moves.iter().map(|&mv| {
                let mut after = *game;
                if after.play(mv) {
                    after.evaluate().of(mover)
                } else {
                    i32::MIN
                }
            });
            first_max(values)?
        }
    };
    let mut after = *game;
    after.play(*moves.get(pick)?).then_some(after)
}

/// The index of the first largest item.
fn first_max(items: impl Iterator<Item = i32>) -> Option<usize> {
    let mut best: Option<(usize, i32)> = None;
    for (i, v) in items.enumerate() {
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((i, v));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::classic::{self, HouseRules, Position};
    use crate::rules::{Place, RuleSet};

    /// Red to move after a 2, which brings its last piece from T39
    /// (progress 40) to H2 and wins; every other colour needs a five to win.
    fn about_to_win() -> Game {
        red_to_move(["T39", "H1", "H3", "H4"], 2)
    }

    /// Red to move after `face` with pieces at `red`, the others' last
    /// pieces a five from winning.
    fn red_to_move(red: [&str; 4], face: u8) -> Game {
        let seats = Seats::for_players(4).unwrap();
        let pieces: Vec<(Colour, Vec<Place>)> = [
            (Colour::Red, red),
            (Colour::Blue, ["T8", "H1", "H2", "H3"]),
            (Colour::Green, ["T18", "H1", "H2", "H3"]),
            (Colour::Yellow, ["T28", "H1", "H2", "H3"]),
        ]
        .into_iter()
        .map(|(c, places)| (c, places.iter().map(|p| p.parse().unwrap()).collect()))
        .collect();
        let position = Position::new(seats, Colour::Red, &pieces).unwrap();
        let mut game = classic::Game::new(HouseRules::default(), position);
        Playable::roll(&mut game, Die::new(face).unwrap());
        Game::Classic(game)
    }

    fn models(opponents: Model) -> [Model; 4] {
        [Model::Greedy, opponents, opponents, opponents]
    }

    fn rollouts(models: &[Model; 4], count: u32, seed: u64) -> Rollouts<'_> {
        Rollouts {
            models,
            count,
            seed,
            set: PICK,
        }
    }

    #[test]
    fn a_move_that_wins_the_game_wins_every_rollout() {
        let game = about_to_win();
        assert_eq!(game.legal_moves().len(), 1);
        for model in [Model::Random, Model::Medium, Model::Greedy] {
            let wins = wins_of(&game, &[0], rollouts(&models(model), 20, 7));
            assert_eq!(wins, [20], "{model:?}");
        }
    }

    #[test]
    fn a_rollout_plays_on_to_a_winner_the_same_way_with_the_same_dice_and_choices() {
        let Game::Classic(game) = about_to_win() else {
            unreachable!()
        };
        // The same position with red still to roll.
        let before = classic::Game::new(HouseRules::default(), *game.position());
        let ends: Vec<Option<Colour>> = (0..30)
            .map(|k| {
                let out = || {
                    let mut dice = Dice::new(seeded::keyed(9, k, 0));
                    let mut choices = seeded::keyed(9, k, 1);
                    let all = models(Model::Random);
                    play_out(before, Colour::Red, &all, &mut dice, &mut choices)
                };
                let end = out();
                assert_eq!(end, out(), "{k}");
                end
            })
            .collect();
        assert!(ends.iter().all(Option::is_some), "{ends:?}");
        // Red needs a two; sometimes another colour's five comes first.
        assert!(ends.contains(&Some(Colour::Red)), "{ends:?}");
        assert!(ends.iter().any(|&e| e != Some(Colour::Red)), "{ends:?}");
    }

    /// A Matfyz six moves nothing and rolls again: a turn whose row is all
    /// sixes draws on, and the game goes on to its end.
    #[test]
    fn a_matfyz_turn_of_a_row_of_sixes_ends() {
        use crate::rules::matfyz;
        let seats = Seats::for_players(2).unwrap();
        let game = matfyz::Game::new(matfyz::Position::start(seats, Colour::Red).unwrap());
        let (end, first_turn) = crate::bot::tests::ends(move || {
            let mut dice = Dice::new(seeded::keyed(9, 0, 0));
            dice.turns.push(vec![Die::SIX; ROLLS_PER_TURN]);
            let mut choices = seeded::keyed(9, 0, 1);
            let all = models(Model::Random);
            let end = play_out(game, Colour::Red, &all, &mut dice, &mut choices);
            (end, dice.turns[0].len())
        });
        assert!(end.is_some());
        assert!(first_turn > ROLLS_PER_TURN, "{first_turn} rolls");
    }

    #[test]
    fn candidates_that_are_one_move_meet_the_same_dice_and_choices() {
        let game = red_to_move(["T5", "T12", "H1", "H2"], 3);
        assert!(game.legal_moves().len() >= 2);
        for model in [Model::Random, Model::Medium, Model::Greedy] {
            let wins = wins_of(&game, &[1, 1, 0, 1], rollouts(&models(model), 12, 3));
            assert_eq!(wins[0], wins[1], "{model:?}");
            assert_eq!(wins[0], wins[3], "{model:?}");
        }
    }

    /// A small audit of the medium player against a random one, 3
    /// rollouts a move: fast enough for a debug build.
    fn small_audit(games: u32, seed: u64) -> Audit {
        Audit {
            rules: RuleSet::Classic(HouseRules::default()),
            player: Player::Bot(Level::Medium),
            opponents: Player::Random,
            believed: None,
            seats: 2,
            games,
            rollouts: 3,
            seed,
            threads: 1,
        }
    }

    #[test]
    fn an_audit_is_a_pure_function_of_its_seed() {
        let audit = small_audit(3, 5);
        let report = audit.run().unwrap();
        assert!(report.decisions >= 3);
        assert_eq!(report.gains.len(), 3);
        assert!(!report.differences.is_empty());
        for (g, &gain) in report.gains.iter().enumerate() {
            let of_game = report.differences.iter().filter(|d| d.game == g as u32);
            assert!((of_game.map(|d| d.gain).sum::<f64>() - gain).abs() < 1e-9);
        }
        for d in &report.differences {
            let legal = d.before.legal_moves();
            assert!(d.pick != d.played && legal.contains(&d.pick) && legal.contains(&d.played));
        }
        assert_eq!(audit.run(), Some(report.clone()));
        let threaded = Audit {
            threads: 2,
            ..audit.clone()
        };
        assert_eq!(threaded.run(), Some(report.clone()));
        let other = Audit { seed: 6, ..audit };
        assert_ne!(other.run(), Some(report));
    }

    #[test]
    fn only_the_picking_set_believes_and_the_measure_plays_the_opponents_exactly() {
        let audit = small_audit(2, 8);
        let exact = audit.run().unwrap();
        let believing = |believed| Audit {
            believed: Some(believed),
            ..audit.clone()
        };
        assert_eq!(believing(Player::Random).run(), Some(exact.clone()));
        let medium = believing(Player::Bot(Level::Medium)).run().unwrap();
        assert_eq!(medium.decisions, exact.decisions);
        assert_ne!(medium.differences, exact.differences);
        // A pick both sets made is measured the same way by both.
        let mut shared = 0;
        for d in &medium.differences {
            let same = exact.differences.iter().find(|e| e.before == d.before);
            if let Some(e) = same.filter(|e| e.pick == d.pick) {
                assert_eq!(e.gain, d.gain);
                shared += 1;
            }
        }
        assert!(shared > 0);
    }
}
