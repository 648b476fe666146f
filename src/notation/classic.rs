//! The classic family's JSON (`"rules": "classic"`).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{HouseRuleError, NotationError, Step, Whole};
use crate::bot;
use crate::rules::board::excerpt;
use crate::rules::classic::{Game, HouseRules, Phase, Position};
use crate::rules::{self, Colour, Place};

/// House-rule names in the order the notation lists them.
const HOUSE_NAMES: [&str; 3] = ["compulsory-capture", "optional-bring-out", "no-jump-home"];

/// A classic document: the position and whatever the command adds to it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Doc {
    #[allow(dead_code)]
    rules: String,
    #[serde(default)]
    house: Option<Vec<String>>,
    seats: Vec<String>,
    turn: String,
    #[serde(with = "serde_with::rust::maps_duplicate_key_is_error")]
    pieces: std::collections::BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub roll: Option<Whole<i64>>,
    #[serde(default)]
    pub script: Option<super::Script>,
    #[serde(default)]
    pub level: Option<String>,
    #[serde(default)]
    pub seed: Option<Whole<u64>>,
}

impl Doc {
    pub fn parse(input: &str) -> Result<Doc, NotationError> {
        Ok(serde_json::from_str(input)?)
    }

    /// The game this document describes, its colour in turn about to roll.
    pub fn game(&self) -> Result<Game, NotationError> {
        let house = house_rules(self.house.iter().flatten())?;
        let seats = super::seats(&self.seats)?;
        let turn = super::colour(&self.turn)?;
        let pieces = self
            .pieces
            .iter()
            .map(|(colour, places)| {
                let places = places
                    .iter()
                    .map(|p| p.parse::<Place>())
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((super::colour(colour)?, places))
            })
            .collect::<Result<Vec<_>, NotationError>>()?;
        let position = Position::new(seats, turn, &pieces)?;
        Ok(Game::new(house, position))
    }
}

/// The house rules with these names switched on; each may be named once
/// (the notation's `house` is a set).
pub fn house_rules<'a>(
    names: impl IntoIterator<Item = &'a String>,
) -> Result<HouseRules, HouseRuleError> {
    let mut house = HouseRules::default();
    for name in names {
        let switch = match name.as_str() {
            "compulsory-capture" => &mut house.compulsory_capture,
            "optional-bring-out" => &mut house.optional_bring_out,
            "no-jump-home" => &mut house.no_jump_home,
            _ => return Err(HouseRuleError::Unknown(excerpt(name))),
        };
        if std::mem::replace(switch, true) {
            return Err(HouseRuleError::Repeated(name.clone()));
        }
    }
    Ok(house)
}

/// The names of the house rules `house` switches on, in the notation's
/// order.
pub fn house_names(house: HouseRules) -> Vec<&'static str> {
    let switches = [
        house.compulsory_capture,
        house.optional_bring_out,
        house.no_jump_home,
    ];
    HOUSE_NAMES
        .into_iter()
        .zip(switches)
        .filter_map(|(name, on)| on.then_some(name))
        .collect()
}

/// The position as the notation writes it: seats clockwise, each colour's
/// pieces in the order they travel (base, track, home).
pub fn position_json(game: &Game) -> Value {
    let position = game.position();
    let seats = position.seats();
    let mut pieces = Pieces::default();
    for colour in seats.iter() {
        let places = position.places(colour).map(|p| p.to_string()).to_vec();
        *pieces.slot(colour) = Some(places);
    }
    json!({
        "rules": "classic",
        "house": house_names(game.house()),
        "seats": seats.iter().map(Colour::name).collect::<Vec<_>>(),
        "turn": position.turn().name(),
        "pieces": pieces,
    })
}

/// Pieces keyed by colour, serialised clockwise.
#[derive(Default, Serialize)]
struct Pieces {
    #[serde(skip_serializing_if = "Option::is_none")]
    red: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    blue: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    green: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    yellow: Option<Vec<String>>,
}

impl Pieces {
    fn slot(&mut self, colour: Colour) -> &mut Option<Vec<String>> {
        match colour {
            Colour::Red => &mut self.red,
            Colour::Blue => &mut self.blue,
            Colour::Green => &mut self.green,
            Colour::Yellow => &mut self.yellow,
        }
    }
}

/// `moves` for a classic position.
pub fn moves(input: &str) -> Result<Value, NotationError> {
    let doc = Doc::parse(input)?;
    super::passed_by(doc.script.as_ref())?;
    let roll = super::die(doc.roll.ok_or(NotationError::Missing("roll"))?)?;
    let game = doc.game()?;
    let mut moves: Vec<String> = match game.phase() {
        Phase::Won => Vec::new(),
        _ => game
            .position()
            .legal_moves(game.house(), roll)
            .iter()
            .map(|m| m.to_string())
            .collect(),
    };
    moves.sort_unstable();
    Ok(json!({ "moves": moves }))
}

/// `replay` for a classic position.
pub fn replay(input: &str) -> Result<Value, NotationError> {
    let doc = Doc::parse(input)?;
    let script = super::steps(doc.script.as_ref())?;
    let mut game = doc.game()?;
    for (index, step) in script.enumerate() {
        let fail = |reason: &dyn std::fmt::Display| NotationError::step(index, reason);
        match &step? {
            Step::Roll(value) => {
                let die = super::die(*value).map_err(|e| fail(&e))?;
                game.roll(die).map_err(|e| fail(&e))?;
            }
            Step::Move(text) => {
                let (from, to) = super::split_move(text).map_err(|e| fail(&e))?;
                let from: Place = from.parse().map_err(|e| fail(&e))?;
                let to: Place = to.parse().map_err(|e| fail(&e))?;
                match game.phase() {
                    Phase::Move { .. } => {
                        let mv = game
                            .find_move(from, to)
                            .ok_or_else(|| fail(&format_args!("{text} is not a legal move")))?;
                        game.play(mv).map_err(|e| fail(&e))?;
                    }
                    Phase::Roll { .. } => return Err(fail(&"a roll is due, not a move")),
                    Phase::Won => return Err(fail(&"the game is over")),
                }
            }
        }
    }
    Ok(json!({ "position": position_json(&game), "next": next_json(&game) }))
}

/// `bot` for a classic position: the computer's move for the roll.
pub fn bot(input: &str) -> Result<Value, NotationError> {
    let doc = Doc::parse(input)?;
    super::passed_by(doc.script.as_ref())?;
    let roll = super::die(doc.roll.ok_or(NotationError::Missing("roll"))?)?;
    let level = super::level(
        doc.level
            .as_deref()
            .ok_or(NotationError::Missing("level"))?,
    )?;
    let Whole(seed) = doc.seed.ok_or(NotationError::Missing("seed"))?;
    let mut game = doc.game()?;
    if game.phase() == Phase::Won {
        return Ok(json!({ "move": null }));
    }
    game.roll(roll)?;
    let mv = bot::choose(&rules::Game::Classic(game), level, seed).map(|mv| mv.to_string());
    Ok(json!({ "move": mv }))
}

fn next_json(game: &Game) -> Value {
    let seat = game.position().turn().name();
    match game.phase() {
        Phase::Roll { attempt } => json!({ "seat": seat, "action": "roll", "try": attempt }),
        Phase::Move { .. } => json!({ "seat": seat, "action": "move" }),
        Phase::Won => json!({ "winner": seat }),
    }
}
