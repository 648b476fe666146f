//! Peer-to-peer networking over libp2p: how phones on one Wi-Fi find each
//! other, join a room and exchange the game log's messages, in order and
//! acknowledged, over real sockets. docs/net.md describes the wire level.
//!
//! - [`identity`]: the player's key, kept crash-safely on disk.
//! - [`ticket`]: the join ticket (link and QR code).
//! - [`code`]: the six-character room code.

pub mod code;
pub mod identity;
pub mod ticket;

pub use code::RoomCode;
pub use ticket::{RoomId, RoomSecret, Ticket};
