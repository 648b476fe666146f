//! The position notation of `../shared/spec/notation.md` (a JSON object per
//! position, like FEN for chess) and the `moves` / `replay` / `bot` answers
//! built on it: `classic` and `matfyz` read and write each rule set's
//! positions. Every input error is a [`NotationError`] with a one-line
//! message; nothing here panics on bad input.

mod classic;
mod matfyz;
mod number;

pub use classic::{house_names, house_rules};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use number::Whole;

use crate::bot::{Level, UnknownLevel};
use crate::rules::FlowError;
use crate::rules::board::{InvalidDie, InvalidSeats, UnknownColour, UnknownPlace, excerpt};
use crate::rules::classic::InvalidPosition;
use crate::rules::{Colour, Die, Seats};

/// Why a list of house rules was refused (also the command line's and a
/// room's `--house`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HouseRuleError {
    #[error(
        "unknown house rule {0:?} (expected compulsory-capture, optional-bring-out or no-jump-home)"
    )]
    Unknown(String),
    #[error("house rule {0:?} is named twice")]
    Repeated(String),
}

/// What is wrong with input that did not read: its JSON itself, or what
/// the JSON says (a field unknown, missing or of the wrong kind).
fn json_problem(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    match e.classify() {
        Category::Syntax | Category::Eof => format!("malformed JSON: {e}"),
        Category::Data => format!("wrong field or value: {e}"),
        Category::Io => format!("cannot read the input: {e}"),
    }
}

/// Why an input could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum NotationError {
    #[error("{}", json_problem(.0))]
    Json(#[from] serde_json::Error),
    #[error("a position is a JSON object, {{\"rules\": …, …}}")]
    NotAnObject,
    #[error("missing field {0:?}")]
    Missing(&'static str),
    #[error("unknown rule set {0:?} (expected \"classic\" or \"matfyz\")")]
    UnknownRules(String),
    #[error(transparent)]
    HouseRule(#[from] HouseRuleError),
    #[error(transparent)]
    Colour(#[from] UnknownColour),
    #[error(transparent)]
    Place(#[from] UnknownPlace),
    #[error(transparent)]
    Seats(#[from] InvalidSeats),
    #[error(transparent)]
    Die(#[from] InvalidDie),
    #[error("impossible position: {0}")]
    Position(#[from] InvalidPosition),
    #[error("impossible position: {0}")]
    MatfyzPosition(#[from] crate::rules::matfyz::InvalidPosition),
    #[error("impossible position: {0}")]
    Invalid(String),
    #[error(transparent)]
    Level(#[from] UnknownLevel),
    #[error("malformed move {0:?} (expected FROM>TO, e.g. \"T5>T9\")")]
    MoveSyntax(String),
    #[error("malformed run {0:?} (expected a path like \"B:green>T0>T6\" or \"T3>T9*blue\")")]
    RunSyntax(String),
    #[error("no rolls to move with: \"rolls\" (or \"roll\") must list the turn's rolls")]
    NoRolls,
    #[error("step {index}: {reason}")]
    Step { index: usize, reason: String },
}

impl NotationError {
    /// The error for script step `index`.
    pub fn step(index: usize, reason: impl std::fmt::Display) -> NotationError {
        NotationError::Step {
            index,
            reason: reason.to_string(),
        }
    }
}

impl From<FlowError> for NotationError {
    fn from(e: FlowError) -> Self {
        NotationError::Invalid(e.to_string())
    }
}

/// One step of a `replay` script: `{"roll": n}` or `{"move": "FROM>TO"}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum Step {
    Roll(Whole<i64>),
    Move(String),
}

/// A `replay` script as written, each step kept as its text: read one by
/// one ([`steps`]), a step that is not one is named by its index like any
/// other bad step.
type Script = Vec<Box<serde_json::value::RawValue>>;

/// The steps of `script` (its field, if given), each read as it is
/// played: the first bad step is the one named, whether it is malformed
/// or out of turn.
fn steps(
    script: Option<&Script>,
) -> Result<impl Iterator<Item = Result<Step, NotationError>> + '_, NotationError> {
    let script = script.ok_or(NotationError::Missing("script"))?;
    Ok(script.iter().enumerate().map(|(index, step)| {
        serde_json::from_str(step.get()).map_err(|e| {
            let what = r#"a step is {"roll": n} or {"move": "FROM>TO"}"#;
            // Quoted only while it fits on the error's one line (a script
            // laid out over lines has line breaks inside its steps).
            match step.get().split_whitespace().collect::<Vec<_>>().join(" ") {
                text if text.chars().count() <= 40 => {
                    NotationError::step(index, format!("{what}, not {text} ({e})"))
                }
                _ => NotationError::step(index, format!("{what} ({e})")),
            }
        })
    }))
}

/// Checks a `script` that the command reads past (`moves`, `bot`): one
/// document may be given to every command, but its script must still be
/// a list of steps, as `replay` would read it.
fn passed_by(script: Option<&Script>) -> Result<(), NotationError> {
    match script {
        Some(_) => steps(script)?.try_for_each(|step| step.map(drop)),
        None => Ok(()),
    }
}

/// `clovece moves`: the legal moves for a position and a roll.
pub fn moves(input: &str) -> Result<String, NotationError> {
    answer(input, classic::moves, matfyz::moves)
}

/// `clovece replay`: the position and what is due after a script of steps.
pub fn replay(input: &str) -> Result<String, NotationError> {
    answer(input, classic::replay, matfyz::replay)
}

/// `clovece bot`: the computer player's move for a position, a roll, a
/// level and a seed.
pub fn bot(input: &str) -> Result<String, NotationError> {
    answer(input, classic::bot, matfyz::bot)
}

type Command = fn(&str) -> Result<Value, NotationError>;

/// The answer of a command, `classic` or `matfyz` by the input's rules.
/// A byte order mark before the input is passed by, as JSON readers may
/// (RFC 8259, 8.1): editors on Windows write one.
fn answer(input: &str, classic: Command, matfyz: Command) -> Result<String, NotationError> {
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    let answer = match rule_set(input)? {
        RuleSet::Classic => classic(input)?,
        RuleSet::Matfyz => matfyz(input)?,
    };
    Ok(spaced(&answer))
}

/// `value` on one line with a space after each `,` and `:`, as the
/// contract's examples write it (`{"moves": ["T0>T6", "T17>T23"]}`, the
/// layout of Python's `json.dumps`), so that the answers equal them byte
/// for byte.
fn spaced(value: &Value) -> String {
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(
            &mut self,
            out: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first { Ok(()) } else { out.write_all(b", ") }
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(
            &mut self,
            out: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            self.begin_array_value(out, first)
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(
            &mut self,
            out: &mut W,
        ) -> std::io::Result<()> {
            out.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    value
        .serialize(&mut serde_json::Serializer::with_formatter(
            &mut out, Spaced,
        ))
        .expect("a JSON value serialises to memory");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

enum RuleSet {
    Classic,
    Matfyz,
}

/// Reads only the `rules` field, to choose the family's document type. The
/// documents are read straight from the text, never through a
/// `serde_json::Value`, which would silently keep the last of a repeated
/// key: serde refuses a repeated field of a struct, and
/// [`serde_with::rust::maps_duplicate_key_is_error`] a repeated map key.
fn rule_set(input: &str) -> Result<RuleSet, NotationError> {
    #[derive(Deserialize)]
    struct Head {
        rules: Option<Value>,
    }
    // Told in the notation's words: serde's would name the struct below,
    // and serde reads a struct from an array of its fields in order too.
    if input.trim_start().starts_with(|c: char| c != '{') {
        return Err(NotationError::NotAnObject);
    }
    let head: Head = serde_json::from_str(input)?;
    match head.rules {
        None => Err(NotationError::Missing("rules")),
        Some(Value::String(s)) if s == "classic" => Ok(RuleSet::Classic),
        Some(Value::String(s)) if s == "matfyz" => Ok(RuleSet::Matfyz),
        Some(Value::String(s)) => Err(NotationError::UnknownRules(excerpt(&s))),
        Some(other) => Err(NotationError::UnknownRules(excerpt(&other.to_string()))),
    }
}

/// Parses a colour name.
pub fn colour(name: &str) -> Result<Colour, NotationError> {
    Ok(name.parse()?)
}

/// Parses a computer player's level.
pub fn level(name: &str) -> Result<Level, NotationError> {
    Ok(name.parse()?)
}

/// Parses the `seats` list (any order).
pub fn seats(names: &[String]) -> Result<Seats, NotationError> {
    let colours = names
        .iter()
        .map(|n| colour(n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Seats::from_colours(&colours)?)
}

/// Checks a roll given as a JSON number.
pub fn die(Whole(value): Whole<i64>) -> Result<Die, NotationError> {
    Ok(Die::try_from(value)?)
}

/// Splits `"FROM>TO"` into its two tokens.
pub fn split_move(text: &str) -> Result<(&str, &str), NotationError> {
    text.split_once('>')
        .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        .ok_or_else(|| NotationError::MoveSyntax(excerpt(text)))
}
