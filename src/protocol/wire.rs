//! The messages phones exchange, and their encoding: postcard (a frozen,
//! documented format; see docs/protocol.md), with every message's size
//! bounded before it is decoded.

use serde::{Deserialize, Serialize};

use super::colours::Colours;
use super::digest::Digest;
use super::event::{Entry, Vote};
use super::identity::Signature;
use crate::rules::Colour;

/// The largest message a phone sends or accepts.
pub const MAX_MESSAGE: usize = 64 * 1024;

/// The most entries one catch-up message carries ([`Message::catch_up`]
/// also stops at [`MAX_MESSAGE`] bytes).
pub const MAX_BATCH: usize = 128;

/// A bound on an entry's size: the largest is a proof of cheating whose
/// path is [`MAX_PATH`](super::event::MAX_PATH) of the largest other entries (a test checks it).
pub const MAX_ENTRY: usize = 24 * 1024;

/// A message between the phones of one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Message {
    /// A new entry, sent by its author to everyone.
    Entry(Entry),
    /// A player's reveal for a roll, sent to everyone as soon as the roll is
    /// due. Unsigned: it proves itself by hashing to the player's previous
    /// link.
    Reveal(Reveal),
    /// A vote that some phones are gone, or that a player is back.
    Vote(Vote),
    /// Where the sender's log stands and whose reveal for the roll due (or,
    /// once the game is over, whose result signature) it still lacks, sent
    /// now and then so that lost messages are sent again, and only those.
    Status {
        len: u32,
        head: Digest,
        missing: Colours,
    },
    /// Asks for the entries from index `from` on.
    Sync { from: u32 },
    /// Consecutive entries, answering a `Sync` or a `Status` that is behind.
    Entries { entries: Vec<Entry> },
    /// A player's signature on the result of the game whose log ends at
    /// `head` (a phone that ended on a branch that lost a conflict signs
    /// again once it has caught up).
    Result {
        seat: Colour,
        head: Digest,
        signature: Signature,
    },
}

/// A player's reveal for one roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reveal {
    pub roll: u32,
    pub seat: Colour,
    pub value: Digest,
}

/// A message that cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("a message of {len} bytes is larger than the limit of {max}")]
    TooLarge { len: usize, max: usize },
    #[error("malformed message: {0}")]
    Malformed(#[from] postcard::Error),
    #[error("{0} bytes left over after the message")]
    Trailing(usize),
    #[error("{len} entries in one message, more than the limit of {max}")]
    TooManyEntries { len: usize, max: usize },
}

impl Message {
    /// A catch-up message with the first of `entries`: as many as fit in
    /// one message, [`MAX_BATCH`] at most.
    pub fn catch_up(entries: &[Entry]) -> Message {
        // The variant's tag and the count take three bytes at most.
        let mut size = 3;
        let fit = entries
            .iter()
            .take(MAX_BATCH)
            .take_while(|entry| {
                size += postcard::experimental::serialized_size(entry).unwrap_or(MAX_MESSAGE);
                size <= MAX_MESSAGE
            })
            .count();
        Message::Entries {
            entries: entries[..fit].to_vec(),
        }
    }

    /// Whether a catch-up message of `len` entries in `bytes` bytes may
    /// have stopped before the end of its sender's log: it is full, by
    /// count or by size (no entry after it would have fitted). A batch cut
    /// by size is at least `MAX_MESSAGE - MAX_ENTRY` bytes: `catch_up`
    /// counts three bytes for the tag and count, which take two below
    /// [`MAX_BATCH`] entries, and the entry left out had at most
    /// [`MAX_ENTRY`].
    pub fn full(len: usize, bytes: usize) -> bool {
        len == MAX_BATCH || bytes >= MAX_MESSAGE - MAX_ENTRY
    }

    pub fn encode(&self) -> Vec<u8> {
        postcard::to_stdvec(self).expect("a message serialises to memory")
    }

    /// Decodes a message of at most [`MAX_MESSAGE`] bytes, with nothing
    /// after it.
    pub fn decode(bytes: &[u8]) -> Result<Message, DecodeError> {
        if bytes.len() > MAX_MESSAGE {
            return Err(DecodeError::TooLarge {
                len: bytes.len(),
                max: MAX_MESSAGE,
            });
        }
        let (message, rest) = postcard::take_from_bytes::<Message>(bytes)?;
        if !rest.is_empty() {
            return Err(DecodeError::Trailing(rest.len()));
        }
        if let Message::Entries { entries } = &message
            && entries.len() > MAX_BATCH
        {
            return Err(DecodeError::TooManyEntries {
                len: entries.len(),
                max: MAX_BATCH,
            });
        }
        Ok(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::colours::Colours;
    use crate::protocol::dice::Reveals;
    use crate::protocol::event::{Act, Auto, Certificate, Change, Kind, MAX_PATH, Proof};
    use crate::protocol::identity::Signer;
    use libp2p_identity::Keypair;

    #[test]
    fn a_batch_of_the_largest_entries_fits_in_a_message() {
        let signer = Signer::new(&Keypair::ed25519_from_bytes([1; 32]).unwrap()).unwrap();
        let reveals = Reveals([Some(Digest([0xff; 32])); 4]);
        let roll = Entry::sign(
            &signer,
            Digest([1; 32]),
            u32::MAX,
            Digest([2; 32]),
            Colour::Red,
            Act::Roll(reveals),
        );
        let Kind::Player(signed) = &roll.kind else {
            unreachable!()
        };
        let cert = Entry {
            index: u32::MAX,
            prev: Digest([2; 32]),
            kind: Kind::Absent(Certificate {
                change: Change::Gone(Colours::one(Colour::Red)),
                votes: vec![(Colour::Blue, signed.signature); 4],
            }),
        };
        // A full batch of either, the largest entries but proofs, is full
        // by count, not by size.
        for entry in [roll.clone(), cert.clone()] {
            let entries = vec![entry; MAX_BATCH + 1];
            let batch = Message::catch_up(&entries);
            let Message::Entries { entries: taken } = &batch else {
                unreachable!()
            };
            assert_eq!(taken.len(), MAX_BATCH);
            let bytes = batch.encode();
            assert!(bytes.len() < MAX_MESSAGE - MAX_ENTRY, "{}", bytes.len());
            assert!(Message::full(taken.len(), bytes.len()));
            assert!(!Message::full(taken.len() - 1, bytes.len()));
            assert_eq!(Message::decode(&bytes), Ok(batch));
        }
        // The largest entry: a late vote with the longest path of the
        // largest other entries.
        let Kind::Absent(mut certificate) = cert.kind.clone() else {
            unreachable!()
        };
        certificate.votes.truncate(1);
        let proof = Entry {
            kind: Kind::Cheat(Box::new(Proof::LateVote {
                certificate,
                path: vec![cert.clone(); MAX_PATH],
            })),
            ..roll.clone()
        };
        let single = Message::Entry(proof.clone()).encode();
        assert!(single.len() <= MAX_ENTRY, "{}", single.len());
        // Many of them stop a batch by size, and it says it is full.
        let mut entries = vec![proof; 6];
        entries.resize(MAX_BATCH, cert);
        let batch = Message::catch_up(&entries);
        let Message::Entries { entries: taken } = &batch else {
            unreachable!()
        };
        let bytes = batch.encode();
        assert!(taken.len() < MAX_BATCH);
        assert!(bytes.len() <= MAX_MESSAGE, "{}", bytes.len());
        assert!(Message::full(taken.len(), bytes.len()));
        assert_eq!(Message::decode(&bytes), Ok(batch));
    }

    /// A proof's path holds no proof, so a message cannot nest proofs (and
    /// decoding them) deeper than one.
    #[test]
    fn a_proof_inside_a_proof_does_not_decode() {
        let signer = Signer::new(&Keypair::ed25519_from_bytes([1; 32]).unwrap()).unwrap();
        let leave = Entry::sign(
            &signer,
            Digest([1; 32]),
            7,
            Digest([2; 32]),
            Colour::Red,
            Act::Leave,
        );
        let Kind::Player(signed) = &leave.kind else {
            unreachable!()
        };
        let certificate = Certificate {
            change: Change::Gone(Colours::one(Colour::Blue)),
            votes: vec![(Colour::Red, signed.signature)],
        };
        let late = |path: Vec<Entry>| Entry {
            kind: Kind::Cheat(Box::new(Proof::LateVote {
                certificate: certificate.clone(),
                path,
            })),
            ..leave.clone()
        };
        // Entries of every other kind decode in a path, to the same bytes.
        let computer = Entry {
            kind: Kind::Computer(Auto::Roll(Reveals::default())),
            ..leave.clone()
        };
        let absent = Entry {
            kind: Kind::Absent(certificate.clone()),
            ..leave.clone()
        };
        let one = Message::Entry(late(vec![computer, absent, leave.clone()]));
        assert_eq!(Message::decode(&one.encode()), Ok(one.clone()));
        let Message::Entry(inner) = one else {
            unreachable!()
        };
        let nested = Message::Entry(late(vec![inner]));
        assert!(matches!(
            Message::decode(&nested.encode()),
            Err(DecodeError::Malformed(_))
        ));
    }
}
