//! The front of the headless `clovece host` / `clovece join`: progress as
//! the output lines of the notation's CLI contract, and this player's
//! actions from the computer (`--bot`) or the terminal ([`super::terminal`]).

use std::io::{self, Write};

use async_trait::async_trait;
use tracing::warn;

use super::front::{Action, Front, Progress};
use super::room::SeatList;
use super::terminal::{self, Terminal};
use crate::bot::Level;
use crate::protocol::{Digest, Due, Phone};
use crate::rules::{Game, Move};

/// Who chooses this player's moves.
enum Hand {
    /// The computer, at this level.
    Computer(Level),
    /// The person at the terminal, read from the first question on (the
    /// host's console may read standard input until the game starts); once
    /// asked, the game and its legal moves, and the seed the computer
    /// takes over with if standard input closes.
    Terminal {
        terminal: Option<Terminal>,
        asked: Option<(Game, Vec<Move>, u64)>,
    },
}

/// The output lines and the computer or the terminal (see the module
/// documentation).
pub struct Lines<W> {
    out: W,
    hand: Hand,
    /// Print `trace:` lines with timestamps, for the latency figures.
    trace: bool,
    /// The log's length at the last `trace: applied` line.
    applied: Option<u32>,
}

impl<W: Write> Lines<W> {
    /// Prints on `out`; the computer plays at `bot`'s level, or with none
    /// the person at the terminal is asked.
    pub fn new(out: W, bot: Option<Level>, trace: bool) -> Lines<W> {
        let hand = match bot {
            Some(level) => Hand::Computer(level),
            None => Hand::Terminal {
                terminal: None,
                asked: None,
            },
        };
        Lines {
            out,
            hand,
            trace,
            applied: None,
        }
    }
}

/// The computer's move at `level` in `game`, seeded by the log's head.
fn computer(game: &Game, level: Level, seed: u64) -> Option<Action> {
    crate::bot::choose(game, level, seed).map(Action::Move)
}

/// The seed of the computer's choice at the log's `head`.
fn seed(head: &Digest) -> u64 {
    u64::from_le_bytes(head.0[..8].try_into().expect("8 bytes"))
}

#[async_trait(?Send)]
impl<W: Write> Front for Lines<W> {
    fn show(&mut self, progress: Progress<'_>) -> io::Result<()> {
        let out = &mut self.out;
        match progress {
            Progress::Opened(ticket) => {
                writeln!(out, "ticket: {ticket}")?;
                writeln!(out, "code: {}", ticket.code())?;
            }
            // The notation's `join` prints no ticket: the guest was given it.
            Progress::Listening { .. }
            | Progress::Joined(_)
            | Progress::Terms(_)
            | Progress::Nearby { .. }
            | Progress::Reached(_)
            | Progress::Named { .. }
            | Progress::InTouch(_) => {}
            Progress::Seats { seats, .. } => writeln!(out, "seats: {}", SeatList(seats))?,
            Progress::Said(line) => writeln!(out, "{line}")?,
            Progress::Resumed(len) => writeln!(out, "resumed: {len}")?,
            Progress::Seat { me, .. } => writeln!(out, "seat: {me}")?,
            Progress::Log(phone) => {
                let len = phone.log().len();
                if self.trace && self.applied != Some(len) {
                    self.applied = Some(len);
                    writeln!(out, "trace: applied {len} {}", micros())?;
                }
            }
            Progress::Away(colour) => writeln!(out, "away: {colour}")?,
            Progress::Back(colour) => writeln!(out, "back: {colour}")?,
            Progress::Silent(silent) => {
                for (colour, left) in silent {
                    let secs = left.div_ceil(1000);
                    writeln!(out, "waiting: {colour} {}:{:02}", secs / 60, secs % 60)?;
                }
            }
            Progress::Acting { action, len } => {
                if self.trace {
                    let kind = if action == Action::Roll {
                        "roll"
                    } else {
                        "move"
                    };
                    writeln!(out, "trace: act {kind} {len} {}", micros())?;
                }
            }
            Progress::Result { winner, head } => {
                let winner = winner.map_or_else(|| "none".to_owned(), |c| c.to_string());
                writeln!(out, "result: winner {winner} log {}", hex(&head))?;
            }
            Progress::Left(head) => writeln!(out, "left: log {}", hex(&head))?,
            Progress::Dropped(head) => writeln!(out, "dropped: log {}", hex(&head))?,
        }
        out.flush()
    }

    fn due(&mut self, phone: &Phone) -> io::Result<Option<Action>> {
        let log = phone.log();
        // A roll is a roll, of the game or of the opening (who begins),
        // which comes before the rules' game does.
        let game = match (log.due(), log.state().game()) {
            (Due::Roll { .. }, _) => return Ok(Some(Action::Roll)),
            (Due::Move { .. }, Some(game)) => *game,
            (Due::Move { .. }, None) | (Due::Over(_), _) => return Ok(None),
        };
        let seed = seed(&log.head());
        match &mut self.hand {
            Hand::Computer(level) => Ok(computer(&game, *level, seed)),
            Hand::Terminal { terminal, asked } => {
                terminal.get_or_insert_with(Terminal::stdin);
                let moves = game.legal_moves();
                writeln!(self.out, "{}", terminal::prompt(&moves))?;
                self.out.flush()?;
                *asked = Some((game, moves, seed));
                Ok(None)
            }
        }
    }

    async fn input(&mut self, asked: bool) -> io::Result<Option<Action>> {
        let Hand::Terminal {
            terminal: Some(terminal),
            asked: Some((game, moves, seed)),
        } = &mut self.hand
        else {
            return std::future::pending().await;
        };
        if !asked {
            return std::future::pending().await;
        }
        let Some(line) = terminal.line().await else {
            warn!("standard input is closed; the computer plays this seat from now on");
            let (game, seed) = (*game, *seed);
            self.hand = Hand::Computer(Level::default());
            return Ok(computer(&game, Level::default(), seed));
        };
        match terminal::choose(&line, moves) {
            Ok(mv) => Ok(Some(Action::Move(mv))),
            Err(why) => {
                writeln!(self.out, "invalid: {why}")?;
                writeln!(self.out, "{}", terminal::prompt(moves))?;
                self.out.flush()?;
                Ok(None)
            }
        }
    }
}

/// Microseconds since the Unix epoch: `trace:` lines of processes on one
/// machine compare on this clock.
fn micros() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

/// The whole hash in lower-case hex.
fn hex(digest: &Digest) -> String {
    digest.0.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Colour;

    /// What `progress` prints.
    fn printed(progress: Progress<'_>) -> String {
        let mut out = Vec::new();
        Lines::new(&mut out, Some(Level::Easy), false)
            .show(progress)
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_result_line_names_the_winner_and_the_whole_log_hash() {
        let head = Digest([0xab; 32]);
        let line = printed(Progress::Result {
            winner: Some(Colour::Blue),
            head,
        });
        assert_eq!(
            line,
            format!("result: winner blue log {}\n", "ab".repeat(32))
        );
        let none = printed(Progress::Result { winner: None, head });
        assert!(none.starts_with("result: winner none log "), "{none}");
    }

    #[test]
    fn silent_players_are_printed_with_the_time_left_rounded_up() {
        let lines = printed(Progress::Silent(&[
            (Colour::Green, 31_200),
            (Colour::Red, 60_000),
        ]));
        assert_eq!(lines, "waiting: green 0:32\nwaiting: red 1:00\n");
        assert_eq!(printed(Progress::Silent(&[])), "");
    }

    #[test]
    fn trace_lines_are_printed_only_with_trace() {
        let acting = Progress::Acting {
            action: Action::Roll,
            len: 7,
        };
        assert_eq!(printed(acting), "");
        let mut out = Vec::new();
        Lines::new(&mut out, None, true).show(acting).unwrap();
        let line = String::from_utf8(out).unwrap();
        assert!(line.starts_with("trace: act roll 7 "), "{line}");
    }
}
