//! Playing one's own seat by hand on the terminal (`clovece host` / `join`
//! without `--bot`): when a move is due the process prints the legal moves
//! in the notation's `FROM>TO` form on a line starting `moves: ` and reads a
//! line; anything else gets a line starting `invalid: ` saying why, and the
//! question again. The die is rolled without asking: a tap carries no
//! choice.

use std::io::BufRead;

use tokio::sync::mpsc;

use crate::rules::Move;

/// Lines typed on standard input, read on a thread of their own so the
/// game keeps talking to its peers while the player thinks.
#[derive(Debug)]
pub struct Terminal {
    lines: mpsc::UnboundedReceiver<String>,
}

impl Terminal {
    /// Starts reading standard input.
    pub fn stdin() -> Terminal {
        let (tx, lines) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            let lines = std::io::stdin().lock().split(b'\n').map_while(Result::ok);
            for line in lines.map(typed) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Terminal { lines }
    }

    /// The next line typed, or `None` once standard input is closed.
    /// Cancel-safe.
    pub async fn line(&mut self) -> Option<String> {
        self.lines.recv().await
    }
}

/// A line typed, without its end, as text: bytes that are not UTF-8 (a
/// terminal in another encoding) become U+FFFD and the line is answered
/// as any other that names no move, rather than ending the input.
pub fn typed(mut line: Vec<u8>) -> String {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8_lossy(&line).into_owned()
}

/// The question: every legal move, in the notation's form.
pub fn prompt(moves: &[Move]) -> String {
    let listed: Vec<String> = moves.iter().map(ToString::to_string).collect();
    format!("moves: {}", listed.join(" "))
}

/// Why a line typed is not a move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("nothing typed; type one of the moves listed")]
    Empty,
    #[error("{0:?} is not a move; type one of the moves listed, e.g. {1}")]
    Syntax(String, String),
    #[error("{0} is not a legal move now; type one of the moves listed")]
    Illegal(String),
}

/// The legal move `input` names (spaces and case are ignored).
pub fn choose(input: &str, moves: &[Move]) -> Result<Move, Refusal> {
    let typed: String = input
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_uppercase();
    if typed.is_empty() {
        return Err(Refusal::Empty);
    }
    if let Some(&mv) = moves.iter().find(|m| m.to_string().to_uppercase() == typed) {
        return Ok(mv);
    }
    if typed.contains('>') {
        Err(Refusal::Illegal(typed))
    } else {
        let example = moves.first().map_or_else(String::new, ToString::to_string);
        Err(Refusal::Syntax(input.trim().to_owned(), example))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Colour, Die, Game, HouseRules, RuleSet, Seats};

    #[test]
    fn a_line_not_in_utf8_is_a_line_naming_no_move() {
        let line = typed(b"\xe8ahaj\r".to_vec());
        assert_eq!(line, "\u{fffd}ahaj");
        assert!(matches!(choose(&line, &moves()), Err(Refusal::Syntax(..))));
    }

    /// A fresh classic game after a six: the moves that bring a piece out.
    fn moves() -> Vec<Move> {
        let rules = RuleSet::Classic(HouseRules::default());
        let mut game = Game::new(rules, Seats::for_players(2).unwrap(), Colour::Red).unwrap();
        game.roll(Die::try_from(6u8).unwrap()).unwrap();
        game.legal_moves()
    }

    #[test]
    fn the_prompt_lists_every_legal_move_in_notation_form() {
        let moves = moves();
        let prompt = prompt(&moves);
        assert!(prompt.starts_with("moves: "), "{prompt}");
        for mv in &moves {
            assert!(prompt.contains(&mv.to_string()), "{prompt}");
        }
    }

    #[test]
    fn a_listed_move_is_chosen_whatever_its_case_and_spacing() {
        let moves = moves();
        let text = moves[0].to_string();
        assert_eq!(choose(&text, &moves), Ok(moves[0]));
        let spaced = format!("  {} ", text.to_lowercase().replace('>', " > "));
        assert_eq!(choose(&spaced, &moves), Ok(moves[0]));
    }

    #[test]
    fn bad_input_is_refused_with_a_reason() {
        let moves = moves();
        assert_eq!(choose("   ", &moves), Err(Refusal::Empty));
        assert!(matches!(choose("hello", &moves), Err(Refusal::Syntax(..))));
        assert_eq!(
            choose("39>40", &moves),
            Err(Refusal::Illegal("39>40".to_owned()))
        );
    }
}
