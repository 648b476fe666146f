//! The game log: a replicated, append-only, signed log of one game, with
//! commit-reveal dice, the computer taking over absent players and
//! crash-safe persistence. Each phone's state is a fold of the rules over
//! the log. No networking here: messages go through [`Transport`], so the
//! same code runs over libp2p and over the simulated network of the tests.
//! docs/protocol.md describes the protocol as a whole.
//!
//! - [`identity`]: players' ed25519 keys (their libp2p identity) and
//!   signatures.
//! - [`header`]: what is fixed before the first roll, signed by every player.
//! - [`event`]: log entries and the rule for two entries in one place.
//! - [`dice`]: hash-chain commitments, reveals and the die they make.
//! - [`state`]: what the log folds to and the checks each entry passes.
//! - [`computer`]: the computer player (`crate::bot`) as the log calls it.
//! - [`log`]: the log itself.
//! - [`phone`]: one phone's part: sending, voting, catching up, saving.
//! - [`presence`]: turning time into observations, outside the core.
//! - [`store`]: crash-safe files.
//! - [`wire`]: messages and their bounded decoding.
//! - [`result`]: the signed result for the statistics.
//! - [`colours`], [`digest`]: sets of colours, domain-separated hashes.
//! - [`sim`]: an in-process network with faults, for tests and benchmarks.

pub mod colours;
pub mod computer;
pub mod dice;
pub mod digest;
pub mod event;
pub mod header;
pub mod identity;
pub mod log;
pub mod phone;
pub mod presence;
pub mod result;
pub mod sim;
pub mod state;
pub mod store;
pub mod wire;

pub use colours::Colours;
pub use dice::{DiceChain, DiceSecret, Reveals, Throw};
pub use digest::Digest;
pub use event::{Act, Auto, Certificate, Change, Entry, Kind, Proof, Signed, Vote};
pub use header::{Header, HeaderError, Seat, SignedHeader, Theme, TurnTimer};
pub use identity::{PublicKey, Signature, Signer};
pub use log::{Log, LogError, Offered, RollRecord};
pub use phone::{Observation, Phone, PhoneError, Transport, Waiting};
pub use presence::Watch;
pub use result::{End, GameResult, SignedResult};
pub use state::{Actor, Control, Due, State, may_certify};
pub use store::{Restored, Store, StoreError};
pub use wire::{DecodeError, Message, Reveal};
