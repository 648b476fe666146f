//! The result of a game, as the statistics use it: computed from the log by
//! every phone and signed by each player, so that it stands on its own.

use serde::{Deserialize, Serialize};

use super::colours::Colours;
use super::digest::Digest;
use super::event::Signable;
use super::identity::{Signature, Signer, Verifier};
use crate::rules::Colour;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum End {
    /// A colour got all four pieces home (as on HoyHop, the game ends at the
    /// first winner).
    Won(Colour),
    /// Every player left; the computer does not play on alone.
    Abandoned,
    /// The dice chains ran out before anyone won.
    OutOfDice,
}

/// The result of a game.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameResult {
    pub game: Digest,
    /// The hash of the log's last entry: the result stands for that log.
    pub head: Digest,
    pub end: End,
    /// By colour: 1 for the winner, 2 for every other colour still in the
    /// game at the end, 3 for players who left on purpose (even if the
    /// computer went on to win their seat); `None` for colours not in play. (The game ends at the first winner, so the
    /// others are not ranked among themselves.)
    pub placings: [Option<u8>; 4],
    /// Players who left on purpose (scored with an extra loss, as in the
    /// Croatian rules).
    pub left: Colours,
    /// By colour: how often the player's phone was certified gone.
    pub absences: [u16; 4],
    /// By colour: how often the player's phone was certified gone while its
    /// own roll waited for its reveal, the one moment when withholding a
    /// reveal could pay (see docs/protocol.md). The statistics count the
    /// game as a loss then, whoever wins it.
    pub withheld: [u16; 4],
    pub rolls: u32,
}

impl GameResult {
    pub fn sign(&self, signer: &Signer) -> Signature {
        signer.sign(&Signable::Result(self))
    }

    pub(crate) fn verify(&self, verifier: &Verifier, signature: &Signature) -> bool {
        verifier.verify(&Signable::Result(self), signature)
    }
}

/// A result with the signatures of the players that have signed it so far.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedResult {
    pub result: GameResult,
    /// In colour order.
    pub signatures: Vec<(Colour, Signature)>,
}

impl SignedResult {
    /// The colours that have signed.
    pub fn signers(&self) -> Colours {
        self.signatures.iter().map(|&(c, _)| c).collect()
    }
}
