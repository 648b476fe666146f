//! SHA-256 digests with a domain tag, so that a hash made for one purpose
//! (an entry, a dice-chain link, a die) can never stand in for another.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

/// A SHA-256 hash: entry hashes, dice-chain links, reveals and the game id.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Digest(pub [u8; 32]);

/// What a hash is for; its tag is hashed in front of the bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Domain {
    /// The game id: the hash of the header.
    Game,
    /// A log entry.
    Entry,
    /// A proof of cheating's entry: its place and the player it puts out.
    Proof,
    /// A certificate's entry: its place, the change it makes and who
    /// voted for it.
    Certificate,
    /// One step down a dice chain.
    Chain,
    /// The seed of one roll's ChaCha20 generator.
    Die,
    /// The seed a computer player gets for one move.
    Bot,
    /// The check bytes of a record on disk.
    Record,
}

impl Domain {
    const fn tag(self) -> &'static [u8] {
        match self {
            Domain::Game => b"clovece/game\0",
            Domain::Entry => b"clovece/entry\0",
            Domain::Proof => b"clovece/proof\0",
            Domain::Certificate => b"clovece/certificate\0",
            Domain::Chain => b"clovece/chain\0",
            Domain::Die => b"clovece/die\0",
            Domain::Bot => b"clovece/bot\0",
            Domain::Record => b"clovece/record\0",
        }
    }
}

impl Digest {
    /// The hash of `bytes` for `domain`.
    pub(crate) fn of(domain: Domain, bytes: &[u8]) -> Digest {
        let mut hasher = Sha256::new();
        hasher.update(domain.tag());
        hasher.update(bytes);
        Digest(hasher.finalize().into())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// The first eight hex digits, enough to tell hashes apart in messages.
impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in &self.0[..4] {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}
