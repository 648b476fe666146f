//! The Matfyz JSON (`"rules": "matfyz"`), defined in docs/matfyz.md.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value, json};

use super::{NotationError, Step, Whole};
use crate::rules::board::excerpt;
use crate::rules::matfyz::{Game, Layout, Phase, Position, Rolls};
use crate::rules::{Colour, Die, FlowError, Place};

/// A Matfyz document: the position and whatever the command adds to it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    #[serde(rename = "rules")]
    _rules: IgnoredAny,
    seats: Vec<String>,
    turn: String,
    #[serde(with = "serde_with::rust::maps_duplicate_key_is_error")]
    bases: BTreeMap<String, Vec<String>>,
    #[serde(with = "serde_with::rust::maps_duplicate_key_is_error")]
    homes: BTreeMap<String, Vec<Option<String>>>,
    #[serde(default, with = "serde_with::rust::maps_duplicate_key_is_error")]
    track: BTreeMap<String, String>,
    #[serde(default)]
    rolls: Option<Vec<Whole<i64>>>,
    /// Shorthand for `"rolls": [n]`.
    #[serde(default)]
    roll: Option<Whole<i64>>,
    #[serde(default)]
    done: Vec<String>,
    #[serde(default)]
    script: Option<super::Script>,
    #[serde(default)]
    level: Option<String>,
    #[serde(default)]
    seed: Option<Whole<u64>>,
}

/// How a trailing six in `rolls` is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Trailing {
    /// Another roll is due (a position in play).
    RollDue,
    /// It is the last roll (`moves`: the listed rolls are the whole turn).
    Last,
}

impl Doc {
    fn parse(input: &str) -> Result<Doc, NotationError> {
        Ok(serde_json::from_str(input)?)
    }

    /// The rolls, checked: sixes first, at most one other number, last.
    fn rolls(&self, trailing: Trailing) -> Result<Rolls, NotationError> {
        let list = match (self.roll, &self.rolls) {
            (Some(_), Some(_)) => {
                return Err(NotationError::Invalid(
                    "give either roll or rolls, not both".into(),
                ));
            }
            (Some(n), None) => vec![super::die(n)?],
            (None, rolls) => rolls
                .iter()
                .flatten()
                .map(|&n| super::die(n))
                .collect::<Result<Vec<_>, _>>()?,
        };
        let (last, sixes) = match list.split_last() {
            None => (None, &list[..]),
            Some((&last, _)) if last.is_six() && trailing == Trailing::RollDue => (None, &list[..]),
            Some((&last, before)) => (Some(last), before),
        };
        if let Some(other) = sixes.iter().find(|d| !d.is_six()) {
            return Err(NotationError::Invalid(format!(
                "rolls must be sixes followed by one other number, but {other} is not last"
            )));
        }
        Ok(Rolls {
            sixes: u32::try_from(sixes.len()).unwrap_or(u32::MAX),
            last,
        })
    }

    /// The position this document describes.
    fn position(&self, trailing: Trailing) -> Result<Position, NotationError> {
        let colour = |name: &String| super::colour(name);
        let bases = self
            .bases
            .iter()
            .map(|(seat, colours)| {
                let colours = colours.iter().map(colour).collect::<Result<_, _>>()?;
                Ok((colour(seat)?, colours))
            })
            .collect::<Result<Vec<_>, NotationError>>()?;
        let homes = self
            .homes
            .iter()
            .map(|(seat, squares)| {
                if squares.len() != 4 {
                    return Err(NotationError::Invalid(format!(
                        "the home of {seat} must list 4 squares, not {}",
                        squares.len()
                    )));
                }
                let mut home = [None; 4];
                for (slot, name) in home.iter_mut().zip(squares) {
                    *slot = name.as_ref().map(colour).transpose()?;
                }
                Ok((colour(seat)?, home))
            })
            .collect::<Result<Vec<_>, NotationError>>()?;
        let track = self
            .track
            .iter()
            .map(|(square, piece)| match square.parse()? {
                Place::Track(n) => Ok((n, colour(piece)?)),
                _ => Err(NotationError::Invalid(format!(
                    "track key {square:?} is not a track square (T0..T39)"
                ))),
            })
            .collect::<Result<Vec<_>, NotationError>>()?;
        let done = self
            .done
            .iter()
            .map(|token| token.parse())
            .collect::<Result<Vec<Place>, _>>()?;
        let layout = Layout {
            seats: super::seats(&self.seats)?,
            turn: super::colour(&self.turn)?,
            bases,
            homes,
            track,
            rolls: self.rolls(trailing)?,
            done,
        };
        Ok(Position::new(&layout)?)
    }
}

/// The position as the notation writes it: seats, bases and homes
/// clockwise, track and done places in board order, every key present.
fn position_json(position: &Position) -> Value {
    let layout = position.layout();
    let names = |colours: &[Colour]| colours.iter().map(|c| c.name()).collect::<Vec<_>>();
    let bases: Map<String, Value> = layout
        .bases
        .iter()
        .map(|(seat, colours)| (seat.name().into(), json!(names(colours))))
        .collect();
    let homes: Map<String, Value> = layout
        .homes
        .iter()
        .map(|(seat, home)| (seat.name().into(), json!(home.map(|c| c.map(Colour::name)))))
        .collect();
    let track: Map<String, Value> = layout
        .track
        .iter()
        .map(|(n, colour)| (Place::Track(*n).to_string(), json!(colour.name())))
        .collect();
    let sixes = usize::try_from(layout.rolls.sixes).unwrap_or(usize::MAX);
    let rolls: Vec<u8> = std::iter::repeat_n(Die::SIX, sixes)
        .chain(layout.rolls.last)
        .map(Die::get)
        .collect();
    json!({
        "rules": "matfyz",
        "seats": names(&layout.seats.iter().collect::<Vec<_>>()),
        "turn": layout.turn.name(),
        "bases": bases,
        "homes": homes,
        "track": track,
        "rolls": rolls,
        "done": layout.done.iter().map(Place::to_string).collect::<Vec<_>>(),
    })
}

/// `moves` for a Matfyz position: every legal run for its rolls (the whole
/// turn: a trailing six counts as the last roll).
pub fn moves(input: &str) -> Result<Value, NotationError> {
    let doc = Doc::parse(input)?;
    super::passed_by(doc.script.as_ref())?;
    let position = doc.position(Trailing::Last)?;
    if position.rolls().last.is_none() {
        return Err(NotationError::NoRolls);
    }
    let mut moves: Vec<String> = Game::new(position)
        .legal_moves()
        .iter()
        .map(ToString::to_string)
        .collect();
    moves.sort_unstable();
    moves.dedup();
    Ok(json!({ "moves": moves }))
}

/// `bot` for a Matfyz position: the computer's first run for its rolls
/// (read as for `moves`: the listed rolls are the whole turn).
pub fn bot(input: &str) -> Result<Value, NotationError> {
    let doc = Doc::parse(input)?;
    super::passed_by(doc.script.as_ref())?;
    let level = super::level(
        doc.level
            .as_deref()
            .ok_or(NotationError::Missing("level"))?,
    )?;
    let Whole(seed) = doc.seed.ok_or(NotationError::Missing("seed"))?;
    let position = doc.position(Trailing::Last)?;
    if position.rolls().last.is_none() {
        return Err(NotationError::NoRolls);
    }
    let game = crate::rules::Game::Matfyz(Game::new(position));
    let run = crate::bot::choose(&game, level, seed).map(|mv| mv.to_string());
    Ok(json!({ "move": run }))
}

/// `replay` for a Matfyz position.
pub fn replay(input: &str) -> Result<Value, NotationError> {
    let doc = Doc::parse(input)?;
    let script = super::steps(doc.script.as_ref())?;
    let mut game = Game::new(doc.position(Trailing::RollDue)?);
    for (index, step) in script.enumerate() {
        let fail = |reason: &dyn std::fmt::Display| NotationError::step(index, reason);
        match &step? {
            Step::Roll(value) => {
                let die = super::die(*value).map_err(|e| fail(&e))?;
                game.roll(die).map_err(|e| fail(&e))?;
            }
            Step::Move(text) => {
                check_run_syntax(text).map_err(|e| fail(&e))?;
                let run = game
                    .legal_moves()
                    .into_iter()
                    .find(|r| r.to_string() == *text);
                let played = match (run, game.phase()) {
                    (Some(run), _) => game.play(run).map(drop),
                    (None, Phase::Move) => {
                        return Err(fail(&format_args!("{text} is not a legal move")));
                    }
                    (None, Phase::Roll) => Err(FlowError::RollDue),
                    (None, Phase::Won) => Err(FlowError::GameOver),
                };
                played.map_err(|e| fail(&e))?;
            }
        }
    }
    Ok(json!({ "position": position_json(game.position()), "next": next_json(&game) }))
}

fn next_json(game: &Game) -> Value {
    let seat = game.position().turn().name();
    match game.phase() {
        Phase::Roll => json!({ "seat": seat, "action": "roll", "try": 1 }),
        Phase::Move => json!({ "seat": seat, "action": "move" }),
        Phase::Won => json!({ "winner": seat }),
    }
}

/// Checks that `text` is written like a run (`B:<colour>` or a square,
/// then `>` and a square per roll, then optionally `*<colour>`), so that a
/// typo gets its own message rather than "not a legal move".
fn check_run_syntax(text: &str) -> Result<(), NotationError> {
    let bad = || NotationError::RunSyntax(excerpt(text));
    let (path, recipient) = match text.split_once('*') {
        Some((path, recipient)) => (path, Some(recipient)),
        None => (text, None),
    };
    if let Some(recipient) = recipient {
        recipient.parse::<Colour>().map_err(|_| bad())?;
    }
    let mut tokens = path.split('>');
    let from = tokens.next().ok_or_else(bad)?;
    match from.strip_prefix("B:") {
        Some(colour) => colour.parse::<Colour>().map(drop).map_err(|_| bad())?,
        None => on_board(from).ok_or_else(bad)?,
    }
    let mut steps = 0;
    for token in tokens {
        on_board(token).ok_or_else(bad)?;
        steps += 1;
    }
    if steps == 0 {
        return Err(bad());
    }
    Ok(())
}

/// `Some` if `token` names a track or home square.
fn on_board(token: &str) -> Option<()> {
    match token.parse::<Place>().ok()? {
        Place::Base => None,
        _ => Some(()),
    }
}
