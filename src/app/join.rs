//! The join screen: the player types a room's six-character code or pastes
//! its ticket link, and learns while typing whether it can be joined.
//!
//! Joining itself is not here: the screen hands the code or ticket to
//! `AppAdapter.join-room`, which the room screen answers.

use crate::net::code::{CodeError, LEN};
use crate::net::ticket::TicketError;
use crate::net::{RoomCode, Ticket};

use super::ui::{self, AppWindow, JoinAdapter};
use slint::ComponentHandle;

/// What the text typed so far is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Empty,
    /// The start of a room code: every character fits, some are missing.
    /// Not an error: the player is still typing.
    Typing {
        typed: usize,
    },
    Code(RoomCode),
    Ticket(Ticket),
    /// A character that no room code has (`0`, `O`, `1`, `I`, `L`, a
    /// symbol), while it still looks like a code.
    BadCharacter(char),
    /// More characters than a code has, and no ticket link either.
    TooLong,
    /// Text starting like a ticket link that does not decode.
    DamagedTicket,
    /// A ticket of a newer ticket format than this app reads.
    NewerTicket,
}

/// The scheme that tells a ticket link from a code, as
/// [`Ticket::from_str`](std::str::FromStr) reads it (any case).
const SCHEME: &str = "CLOVECE:";

impl Entry {
    /// Reads `text` as the player typed or pasted it. A ticket link pasted
    /// from a message may come with words and punctuation around it ("Join
    /// me: (CLOVECE:…)."): the link is what counts. So is the one code
    /// among the words of a message ("Room code K7M2QX"), and a code typed
    /// in groups ("K7M 2QX", "K7M-2QX"). A message with two (a code and a
    /// word of six of the code's letters, "K7M 2QX, thanks!") is refused
    /// rather than read as either; so is a grouped code beside a short
    /// word that joins it into another ("Hey K7M 2QX": HEYK7M or K7M2QX),
    /// as the whole message was before.
    pub fn read(text: &str) -> Entry {
        let text = text.trim();
        if text.is_empty() {
            return Entry::Empty;
        }
        if let Some(link) = link_in(text) {
            return match link.parse::<Ticket>() {
                Ok(ticket) => Entry::Ticket(ticket),
                Err(TicketError::Version(_)) => Entry::NewerTicket,
                Err(_) => Entry::DamagedTicket,
            };
        }
        let words: Vec<&str> = words(text).collect();
        match codes_in(&words)[..] {
            [code] => return Entry::Code(code),
            [_, _, ..] => return Entry::TooLong,
            [] => {}
        }
        let text: String = text
            .chars()
            .filter(|&c| !c.is_whitespace() && c != '-')
            .collect();
        match text.parse::<RoomCode>() {
            Ok(code) => Entry::Code(code),
            Err(CodeError::Character(c)) => Entry::BadCharacter(c),
            Err(CodeError::Length(n)) if n > LEN => Entry::TooLong,
            Err(CodeError::Length(n)) => {
                // Too short, but each character may still be right: check
                // them by padding to a full code with a valid character.
                let padded = format!("{text}{}", "2".repeat(LEN - n));
                match padded.parse::<RoomCode>() {
                    Err(CodeError::Character(c)) => Entry::BadCharacter(c),
                    _ => Entry::Typing { typed: n },
                }
            }
        }
    }

    /// What `AppAdapter.join-room` is given: the code in capitals or the
    /// ticket's link; `None` while there is nothing to join.
    pub fn target(&self) -> Option<String> {
        match self {
            Entry::Code(code) => Some(code.to_string()),
            Entry::Ticket(ticket) => Some(ticket.to_string()),
            _ => None,
        }
    }
}

/// The word of `text` that starts like a ticket link, if one does.
fn link_in(text: &str) -> Option<&str> {
    words(text).find(|word| {
        word.get(..SCHEME.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(SCHEME))
    })
}

/// The room codes among `words`: a word that is one (its dashes aside),
/// and neighbouring shorter words that together are one ("K7M 2QX").
fn codes_in(words: &[&str]) -> Vec<RoomCode> {
    let mut codes = Vec::new();
    for start in 0..words.len() {
        let mut joined = String::new();
        for (i, word) in words[start..].iter().enumerate() {
            let part: String = word.chars().filter(|&c| c != '-').collect();
            // A word of a code's length or more is no code's group.
            if i > 0 && part.chars().count() >= LEN {
                break;
            }
            joined.push_str(&part);
            if joined.chars().count() >= LEN {
                codes.extend(joined.parse::<RoomCode>().ok());
                break;
            }
        }
    }
    codes
}

/// The words of `text` without the punctuation around them (a link's
/// colon kept): neither a link nor a code has any.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .map(|word| word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != ':'))
}

/// Wires the join screen: every edit is checked at once.
pub(super) fn connect(window: &AppWindow) {
    let adapter = window.global::<JoinAdapter>();
    let weak = window.as_weak();
    adapter.on_edited(move |text| {
        if let Some(window) = weak.upgrade() {
            show(&window.global::<JoinAdapter>(), &Entry::read(&text));
        }
    });
}

fn show(adapter: &JoinAdapter<'_>, entry: &Entry) {
    let (check, typed, bad) = match entry {
        Entry::Empty => (ui::JoinCheck::Empty, 0, None),
        Entry::Typing { typed } => (ui::JoinCheck::Typing, *typed, None),
        Entry::Code(_) => (ui::JoinCheck::Code, LEN, None),
        Entry::Ticket(_) => (ui::JoinCheck::Ticket, 0, None),
        Entry::BadCharacter(c) => (ui::JoinCheck::BadCharacter, 0, Some(*c)),
        Entry::TooLong => (ui::JoinCheck::TooLong, 0, None),
        Entry::DamagedTicket => (ui::JoinCheck::DamagedTicket, 0, None),
        Entry::NewerTicket => (ui::JoinCheck::NewerTicket, 0, None),
    };
    adapter.set_check(check);
    adapter.set_typed(i32::try_from(typed).unwrap_or(0));
    adapter.set_bad_character(bad.map(String::from).unwrap_or_default().into());
    let code = match entry {
        Entry::Code(code) => code.to_string(),
        Entry::Ticket(ticket) => ticket.code().to_string(),
        _ => String::new(),
    };
    adapter.set_code(code.into());
    adapter.set_target(entry.target().unwrap_or_default().into());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::RoomId;

    fn ticket() -> Ticket {
        let host = libp2p::PeerId::random();
        let addr = "/ip4/127.0.0.1/tcp/4001".parse().unwrap();
        Ticket::new(RoomId::from_bytes([7; 16]), host, [addr], None).unwrap()
    }

    #[test]
    fn a_full_code_is_joinable_in_capitals() {
        let entry = Entry::read(" ab2c9z ");
        assert!(matches!(entry, Entry::Code(_)));
        assert_eq!(entry.target().as_deref(), Some("AB2C9Z"));
    }

    #[test]
    fn a_partial_code_is_still_typing_not_an_error() {
        assert_eq!(Entry::read("ab2"), Entry::Typing { typed: 3 });
        assert_eq!(Entry::read(""), Entry::Empty);
        assert_eq!(Entry::read("   "), Entry::Empty);
        assert_eq!(Entry::read("ab2").target(), None);
    }

    #[test]
    fn a_look_alike_is_refused_as_soon_as_it_is_typed() {
        assert_eq!(Entry::read("A0"), Entry::BadCharacter('0'));
        assert_eq!(Entry::read("abcdeO"), Entry::BadCharacter('O'));
        assert_eq!(Entry::read("Ž"), Entry::BadCharacter('Ž'));
    }

    #[test]
    fn more_than_six_characters_without_a_scheme_is_too_long() {
        assert_eq!(Entry::read("ABCDEFG"), Entry::TooLong);
        assert_eq!(Entry::read("ABCDEFG").target(), None);
    }

    #[test]
    fn a_pasted_ticket_is_joinable_by_its_link_in_any_case() {
        let ticket = ticket();
        let link = ticket.to_string();
        assert_eq!(Entry::read(&link), Entry::Ticket(ticket.clone()));
        let lower = format!("  {}\n", link.to_lowercase());
        assert_eq!(Entry::read(&lower).target(), Some(link));
    }

    #[test]
    fn a_ticket_link_among_the_words_of_a_message_is_found() {
        let ticket = ticket();
        let message = format!("Join my room:\n{ticket}\nsee you");
        assert_eq!(Entry::read(&message), Entry::Ticket(ticket));
        assert_eq!(Entry::read("Join my room"), Entry::TooLong);
    }

    /// Punctuation around a pasted link or code is no part of it, and a
    /// code may come in groups or among the words of a message.
    #[test]
    fn a_link_or_code_is_read_out_of_the_punctuation_and_words_around_it() {
        let ticket = ticket();
        for message in [
            format!("Join my room: {ticket}."),
            format!("({ticket})"),
            format!("„{ticket}“, see you"),
        ] {
            assert_eq!(
                Entry::read(&message),
                Entry::Ticket(ticket.clone()),
                "{message}"
            );
        }
        let code = Some("K7M2QX".to_owned());
        for typed in ["K7M 2QX", "k7m-2qx", "Room code K7M2QX", "code: K7M2QX."] {
            assert_eq!(Entry::read(typed).target(), code, "{typed}");
        }
        assert_eq!(Entry::read("K7M 2"), Entry::Typing { typed: 4 });
        // Two codes in one message: neither is chosen.
        assert_eq!(Entry::read("K7M2QX or K7M2QY"), Entry::TooLong);
    }

    /// A message with a code in groups and a word that could be a code
    /// is not read as the word.
    #[test]
    fn a_grouped_code_beside_a_six_letter_word_is_refused_not_read_as_the_word() {
        assert_eq!(Entry::read("K7M 2QX — thanks!"), Entry::TooLong);
        assert_eq!(Entry::read("THANKS, K7M2QX"), Entry::TooLong);
        assert_eq!(Entry::read("Code: K7 M2 QX."), Entry::read("K7M2QX"));
        assert_eq!(Entry::read("Room K7M-2QX, see you"), Entry::read("K7M2QX"));
        assert_eq!(Entry::read("Hey K7M 2QX"), Entry::TooLong);
    }

    #[test]
    fn a_damaged_or_newer_ticket_is_said_so() {
        let link = ticket().to_string();
        assert_eq!(Entry::read(&link[..link.len() - 5]), Entry::DamagedTicket);
        assert_eq!(Entry::read("clovece:"), Entry::DamagedTicket);
        assert_eq!(Entry::read("CLOVECE:!!"), Entry::DamagedTicket);
        // A format no app makes (0) is damaged, not a newer app's.
        assert_eq!(Entry::read("CLOVECE:AAAA"), Entry::DamagedTicket);
        // Version byte 2 in base32 ("AI" is 0x02 and two padding bits).
        assert_eq!(Entry::read("CLOVECE:AI"), Entry::NewerTicket);
    }
}
