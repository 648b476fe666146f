//! The short room code: six characters a player reads off the host's screen
//! and types on theirs, to find an open room among nearby phones (found by
//! mDNS) without scanning a QR code.
//!
//! The alphabet leaves out the characters that are easily mistaken for
//! others when read aloud or off a small screen: `0`/`O`, `1`/`I`/`L`. The
//! code is not stored anywhere: it is derived from the room id, so a ticket
//! and a code always agree. With 31⁶ ≈ 8.9·10⁸ codes, two open rooms in one
//! place sharing a code is not a practical concern; a lookup that finds two
//! rooms still tells the player so instead of picking one.

use std::fmt;
use std::str::FromStr;

use super::ticket::RoomId;

/// The characters of a room code, in digit order.
const ALPHABET: &[u8; 31] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/// The number of characters in a code.
pub const LEN: usize = 6;

/// A room code: always six characters of [`ALPHABET`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RoomCode([u8; LEN]);

/// Text that is not a room code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    #[error("a room code has {LEN} characters, not {0}")]
    Length(usize),
    #[error("{0:?} does not occur in room codes (they use 2-9 and A-Z without I, L and O)")]
    Character(char),
}

impl RoomCode {
    /// The code of room `room`.
    pub fn of(room: &RoomId) -> RoomCode {
        let mut first = [0; 8];
        first.copy_from_slice(&room.as_bytes()[..8]);
        let mut n = u64::from_le_bytes(first);
        let mut code = [0; LEN];
        for c in code.iter_mut().rev() {
            *c = ALPHABET[(n % ALPHABET.len() as u64) as usize];
            n /= ALPHABET.len() as u64;
        }
        RoomCode(code)
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("the alphabet is ASCII")
    }
}

impl FromStr for RoomCode {
    type Err = CodeError;

    /// Reads a code as typed: upper or lower case, surrounding spaces
    /// ignored.
    fn from_str(s: &str) -> Result<RoomCode, CodeError> {
        let s = s.trim();
        let count = s.chars().count();
        if count != LEN {
            return Err(CodeError::Length(count));
        }
        let mut code = [0; LEN];
        for (slot, ch) in code.iter_mut().zip(s.chars()) {
            let upper = ch.to_ascii_uppercase();
            *slot = ALPHABET
                .iter()
                .copied()
                .find(|&a| char::from(a) == upper)
                .ok_or(CodeError::Character(ch))?;
        }
        Ok(RoomCode(code))
    }
}

impl fmt::Display for RoomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for RoomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RoomCode({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn room_code_alphabet_has_no_look_alikes() {
        for ch in b"0O1IL" {
            assert!(!ALPHABET.contains(ch), "{}", char::from(*ch));
        }
        let mut sorted = ALPHABET.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ALPHABET.len());
    }

    #[test]
    fn room_code_is_read_in_either_case() {
        let code: RoomCode = " ab2c9z ".parse().unwrap();
        assert_eq!(code.as_str(), "AB2C9Z");
    }

    #[test]
    fn room_code_refuses_look_alikes_and_wrong_lengths() {
        assert_eq!("AB0C9Z".parse::<RoomCode>(), Err(CodeError::Character('0')));
        assert_eq!("ABlC9Z".parse::<RoomCode>(), Err(CodeError::Character('l')));
        assert_eq!("ABC".parse::<RoomCode>(), Err(CodeError::Length(3)));
        assert_eq!("ABCDEFG".parse::<RoomCode>(), Err(CodeError::Length(7)));
        assert_eq!("ÄBCDEF".parse::<RoomCode>(), Err(CodeError::Character('Ä')));
    }

    proptest! {
        #[test]
        fn room_code_of_any_room_reads_back(bytes in any::<[u8; 16]>()) {
            let code = RoomCode::of(&RoomId::from_bytes(bytes));
            prop_assert_eq!(code.as_str().parse::<RoomCode>(), Ok(code));
            prop_assert_eq!(code.as_str().to_lowercase().parse::<RoomCode>(), Ok(code));
        }

        #[test]
        fn room_code_parsing_never_panics(s in "\\PC{0,12}") {
            let _ = s.parse::<RoomCode>();
        }
    }
}
