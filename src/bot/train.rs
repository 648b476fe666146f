//! The trainer of the hard player's learnt evaluation: TD(λ) on games of
//! self-play (Tesauro's TD-Gammon method, as the Ludo TD papers use it),
//! four colours of the classic rules, each playing the move whose position
//! the current weights rate best for it.
//!
//! The model is a softmax over the seated colours: colour `c` wins with
//! chance `e^(s_c) / Σ e^s`, where `s_c` is a network of its
//! [features](super::classic::features) (each divided by its `SCALE`): a
//! linear part plus one hidden layer of units clipped to `0..=1`, as
//! TD-Gammon's, with the gradient taken through the units that are
//! neither off nor full. After each game every position
//! met is moved towards its λ-return (the offline, forward view of TD(λ)),
//! the last one towards who won, with the gradient of the log loss.
//!
//! Floats are used here and only here: the trainer runs once on a
//! maintainer's machine and prints integer weights
//! ([`Weights::rust_source`]) that the bot then applies in integers. Runs
//! are sequential, so the same configuration gives the same weights.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;

use super::classic::features::{self, COUNT, SCALE, Vector};
use super::classic::learnt::{HIDDEN, Net, UNIT};
use super::playable::LOGIT_UNIT;
use super::{Level, Player, seeded};
use crate::rules::classic::{Game, HouseRules, Phase, Position};
use crate::rules::{Colour, Seats};

/// What to train.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Games of self-play.
    pub games: u32,
    /// Seeds the dice of every game.
    pub seed: u64,
    /// Step size at the start; it falls linearly to a tenth of it by the
    /// last game.
    pub alpha: f64,
    /// How far back each outcome is credited (0: one step, 1: Monte Carlo).
    pub lambda: f64,
    /// Who the learner plays against.
    pub opponents: Opponents,
}

/// Who the learner plays against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponents {
    /// Itself on every seat; every colour's chance is learnt.
    SelfPlay,
    /// One seat learns (a different one each game) against three random
    /// players and three medium players in alternate rounds of four games;
    /// only its chance is learnt.
    Pool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            games: 100_000,
            seed: 1,
            alpha: 0.002,
            lambda: 0.7,
            opponents: Opponents::SelfPlay,
        }
    }
}

/// Rolls after which a self-play game is dropped (none comes near).
const MAX_ROLLS: u32 = 100_000;

/// A model's weights, in logits per unit of each scaled feature: a linear
/// part and one hidden layer of units clipped to `0..=1`
/// ([`learnt::Net`] in floats).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    pub linear: [f64; COUNT],
    /// `hidden[j][k]`: feature `j`'s weight in unit `k`'s input (by
    /// feature, so that a feature's contribution to every unit is one
    /// vectorised loop).
    pub hidden: [[f64; HIDDEN]; COUNT],
    pub bias: [f64; HIDDEN],
    pub output: [f64; HIDDEN],
}

/// One colour's score and what its gradient needs: the scaled features
/// (and which of them are not zero: most are one-hot, and skipping the
/// zeros makes training several times faster) and each hidden unit's
/// input.
struct Forward {
    x: [f64; COUNT],
    nonzero: [usize; COUNT],
    nonzeros: usize,
    input: [f64; HIDDEN],
    score: f64,
}

impl Forward {
    /// The indices of the features that are not zero.
    fn nonzero(&self) -> &[usize] {
        &self.nonzero[..self.nonzeros]
    }

    /// `w · x`.
    fn dot(&self, w: &[f64; COUNT]) -> f64 {
        self.nonzero().iter().map(|&j| w[j] * self.x[j]).sum()
    }
}

impl Weights {
    /// Where training starts: the race table alone, at the hand-made
    /// evaluation's weight (a third of a logit per turn), so that the first
    /// games already race rather than wander, and small hidden weights
    /// drawn from the seed, each unit half on.
    fn initial(seed: u64) -> Weights {
        let mut rng = seeded::stream(seed, seeded::Stream::TrainerStart);
        let mut uniform =
            |half: f64| ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * half;
        let mut linear = [0.0; COUNT];
        linear[features::RACE] = -0.354 * f64::from(SCALE[features::RACE]) / 16.0;
        let hidden = std::array::from_fn(|_| std::array::from_fn(|_| uniform(0.1)));
        let bias = std::array::from_fn(|_| 0.5 + uniform(0.3));
        let output = std::array::from_fn(|_| uniform(0.1));
        Weights {
            linear,
            hidden,
            bias,
            output,
        }
    }

    fn forward(&self, x: &Vector) -> Forward {
        let mut f = Forward {
            x: [0.0; COUNT],
            nonzero: [0; COUNT],
            nonzeros: 0,
            input: [0.0; HIDDEN],
            score: 0.0,
        };
        for j in (0..COUNT).filter(|&j| x[j] != 0) {
            f.x[j] = f64::from(x[j]) / f64::from(SCALE[j]);
            f.nonzero[f.nonzeros] = j;
            f.nonzeros += 1;
        }
        f.input = self.bias;
        for &j in &f.nonzero[..f.nonzeros] {
            for (input, w) in f.input.iter_mut().zip(&self.hidden[j]) {
                *input += w * f.x[j];
            }
        }
        let hidden: f64 = (f.input.iter().zip(&self.output))
            .map(|(i, o)| o * i.clamp(0.0, 1.0))
            .sum();
        f.score = f.dot(&self.linear) + hidden;
        f
    }

    /// Adds `error` times the gradient of `f`'s score to `step`.
    fn add_gradient(&self, step: &mut Weights, f: &Forward, error: f64) {
        for &j in f.nonzero() {
            step.linear[j] += error * f.x[j];
        }
        // The error at each unit's input: none through a unit that is off
        // or full.
        let mut e = [0.0; HIDDEN];
        let units = (e.iter_mut().zip(&mut step.output)).zip(f.input.iter().zip(&self.output));
        for ((e, step), (&input, &output)) in units {
            *step += error * input.clamp(0.0, 1.0);
            if (0.0..1.0).contains(&input) {
                *e = error * output;
            }
        }
        for (b, e) in step.bias.iter_mut().zip(&e) {
            *b += e;
        }
        for &j in f.nonzero() {
            for (s, e) in step.hidden[j].iter_mut().zip(&e) {
                *s += e * f.x[j];
            }
        }
    }

    /// Each seated colour's chance of winning (zero for the others), from
    /// its forward pass.
    fn chances_of(seats: Seats, forward: &[Option<Forward>; 4]) -> [f64; 4] {
        let mut s = [f64::NEG_INFINITY; 4];
        for c in seats.iter() {
            if let Some(f) = &forward[c.index()] {
                s[c.index()] = f.score;
            }
        }
        let top = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e = s.map(|v| (v - top).exp());
        let total: f64 = e.iter().sum();
        e.map(|v| v / total)
    }

    fn forwards(&self, seats: Seats, x: &[Vector; 4]) -> [Option<Forward>; 4] {
        let mut out = [None, None, None, None];
        for c in seats.iter() {
            out[c.index()] = Some(self.forward(&x[c.index()]));
        }
        out
    }

    /// Each seated colour's chance of winning (zero for the others).
    fn chances(&self, seats: Seats, x: &[Vector; 4]) -> [f64; 4] {
        Weights::chances_of(seats, &self.forwards(seats, x))
    }

    /// Adds `alpha` times `step`.
    fn advance(&mut self, step: &Weights, alpha: f64) {
        let pairs = (self.linear.iter_mut().zip(&step.linear))
            .chain(
                self.hidden
                    .iter_mut()
                    .flatten()
                    .zip(step.hidden.iter().flatten()),
            )
            .chain(self.bias.iter_mut().zip(&step.bias))
            .chain(self.output.iter_mut().zip(&step.output));
        for (w, s) in pairs {
            *w += alpha * s;
        }
    }

    fn zero() -> Weights {
        Weights {
            linear: [0.0; COUNT],
            hidden: [[0.0; HIDDEN]; COUNT],
            bias: [0.0; HIDDEN],
            output: [0.0; HIDDEN],
        }
    }

    /// The weights in the bot's integers ([`learnt::Net`]).
    pub fn quantised(&self) -> Net {
        let logit = LOGIT_UNIT as f64;
        let unit = UNIT as f64;
        let per_feature = |w: &[f64; COUNT], one: f64| -> [i64; COUNT] {
            std::array::from_fn(|j| (w[j] * one / f64::from(SCALE[j])).round() as i64)
        };
        Net {
            linear: per_feature(&self.linear, logit),
            hidden: std::array::from_fn(|k| per_feature(&self.hidden.map(|row| row[k]), unit)),
            bias: self.bias.map(|b| (b * unit).round() as i64),
            output: self.output.map(|o| (o * logit).round() as i64),
        }
    }

    /// `src/bot/classic/learnt_weights.rs` for these weights, saying how
    /// they were made.
    pub fn rust_source(&self, config: &Config) -> String {
        let mut out = format!(
            "//! The learnt evaluation's network (`learnt::Net`). Generated by\n\
             //! TD(λ) (docs/bots.md), do not edit:\n\
             //! `cargo run --release --example train_hard -- --games {} --seed {} \\\n\
             //! --alpha {} --lambda {}{} > src/bot/classic/learnt_weights.rs`\n\n\
             use super::Net;\n\n\
             #[rustfmt::skip]\n\
             pub const NET: Net = Net {{\n    linear: [\n",
            config.games,
            config.seed,
            config.alpha,
            config.lambda,
            match config.opponents {
                Opponents::SelfPlay => "",
                Opponents::Pool => " --pool",
            },
        );
        let net = self.quantised();
        let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        for (i, q) in net.linear.iter().enumerate() {
            out += &format!("        {q}, // {}\n", features::name(i));
        }
        out += "    ],\n    hidden: [\n";
        for (k, row) in net.hidden.iter().enumerate() {
            out += &format!("        [{}], // unit {k}\n", list(row));
        }
        out += &format!("    ],\n    bias: [{}],\n", list(&net.bias));
        out += &format!("    output: [{}],\n}};\n", list(&net.output));
        out
    }
}

/// Trains weights by `config`, calling `progress` after every 1,000th
/// game with the count so far.
pub fn train(config: &Config, mut progress: impl FnMut(u32, &Weights)) -> Weights {
    let mut weights = Weights::initial(config.seed);
    let mut dice = seeded::rng(config.seed);
    for g in 0..config.games {
        let alpha = config.alpha * (1.0 - 0.9 * f64::from(g) / f64::from(config.games));
        let table = match config.opponents {
            Opponents::SelfPlay => None,
            Opponents::Pool => {
                let opponent = if g / 4 % 2 == 0 {
                    Player::Random
                } else {
                    Player::Bot(Level::Medium)
                };
                Some((Colour::from_index(g as usize), opponent))
            }
        };
        if let Some((positions, winner)) = play(&weights, table, &mut dice) {
            let learner = table.map(|(learner, _)| learner);
            learn(
                &mut weights,
                &positions,
                winner,
                learner,
                alpha,
                config.lambda,
            );
        }
        if (g + 1) % 1000 == 0 {
            progress(g + 1, &weights);
        }
    }
    weights
}

/// The seats of every training game.
const SEATS: Seats = match Seats::for_players(4) {
    Some(seats) => seats,
    None => panic!("four players always have seats"),
};

/// One training game: `table` is the learner's colour and everyone else's
/// player, `None` in self-play. The features of every position after a
/// move (the last before the winning one included), and the winner; `None`
/// if it did not end.
fn play(
    weights: &Weights,
    table: Option<(Colour, Player)>,
    dice: &mut ChaCha8Rng,
) -> Option<(Vec<[Vector; 4]>, Colour)> {
    let position = Position::start(SEATS, Colour::Red).ok()?;
    let mut game = Game::new(HouseRules::default(), position);
    let mut positions = Vec::new();
    for _ in 0..MAX_ROLLS {
        let mover = game.position().turn();
        match (game.phase(), table) {
            (Phase::Won, _) => return Some((positions, mover)),
            (Phase::Roll { .. }, _) => {
                game.roll(seeded::die(dice)).ok()?;
            }
            (Phase::Move { .. }, Some((learner, other))) if learner != mover => {
                let mv = other.decide(&game, dice.next_u64())?;
                game.play(mv).ok()?;
                if game.winner().is_none() {
                    positions.push(features::of(&game));
                }
            }
            (Phase::Move { .. }, _) => {
                let (next, x) = greedy(weights, &game)?;
                game = next;
                positions.extend(x);
            }
        }
    }
    None
}

/// The move the weights like best for the colour to move: the game after
/// it and, unless it won, the features of its position.
fn greedy(weights: &Weights, game: &Game) -> Option<(Game, Option<[Vector; 4]>)> {
    let mover = game.position().turn();
    let mut best: Option<(f64, Game, Option<[Vector; 4]>)> = None;
    for mv in game.legal_moves().iter() {
        let mut child = *game;
        child.play(mv).ok()?;
        if child.winner().is_some() {
            return Some((child, None));
        }
        let x = features::of(&child);
        let chance = weights.chances(SEATS, &x)[mover.index()];
        if best.as_ref().is_none_or(|(b, _, _)| chance > *b) {
            best = Some((chance, child, Some(x)));
        }
    }
    best.map(|(_, game, x)| (game, x))
}

/// Moves every position of a game towards its λ-return: the outcome for
/// the last, `(1 - λ)` of the next position's chances plus `λ` of the next
/// return for the others. With a `learner`, only its chance is learnt (the
/// gradient of its log loss, which moves every colour's score); otherwise
/// every colour's (the softmax's log loss).
fn learn(
    weights: &mut Weights,
    positions: &[[Vector; 4]],
    winner: Colour,
    learner: Option<Colour>,
    alpha: f64,
    lambda: f64,
) {
    let forwards: Vec<[Option<Forward>; 4]> = positions
        .iter()
        .map(|x| weights.forwards(SEATS, x))
        .collect();
    let chances: Vec<[f64; 4]> = forwards
        .iter()
        .map(|f| Weights::chances_of(SEATS, f))
        .collect();
    let mut target = [0.0; 4];
    target[winner.index()] = 1.0;
    let mut step = Weights::zero();
    for (t, forward) in forwards.iter().enumerate().rev() {
        if let Some(next) = chances.get(t + 1) {
            for c in 0..4 {
                target[c] = (1.0 - lambda) * next[c] + lambda * target[c];
            }
        }
        let p = chances[t];
        let errors: [f64; 4] = match learner {
            None => std::array::from_fn(|c| target[c] - p[c]),
            Some(l) => {
                let (l, error) = (l.index(), target[l.index()] - p[l.index()]);
                let rest = (1.0 - p[l]).max(1e-9);
                std::array::from_fn(|c| if c == l { error } else { -error * p[c] / rest })
            }
        };
        for (f, error) in forward.iter().zip(errors) {
            if let Some(f) = f {
                weights.add_gradient(&mut step, f, error);
            }
        }
    }
    weights.advance(&step, alpha);
}
