//! Rooms before a game, above the networking layer (`crate::net`):
//!
//! - [`options`]: what the host chooses when creating a room, and the
//!   nearby rooms list's filters.
//! - [`nearby`]: the nearby rooms list, live (`clovece rooms`).
//!
//! docs/lobby.md describes the messages and the decisions taken.

pub mod nearby;
pub mod options;

pub use options::{Filter, Players, RoomOptions, TurnTime};
