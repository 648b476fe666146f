//! Rooms before a game, above the networking layer (`crate::net`):
//!
//! - [`options`]: what the host chooses when creating a room, and the
//!   nearby rooms list's filters.
//! - [`nearby`]: the nearby rooms list, live (`clovece rooms`).
//! - [`seats`]: who sits where, ready checks, and when a game may start.
//! - [`host`]: the host's organiser of the room (`clovece host`), with
//!   its console.
//! - [`invite`]: invitations from the friends or all players list.
//!
//! docs/lobby.md describes the messages and the decisions taken.

pub mod host;
pub mod invite;
pub mod nearby;
pub mod options;
pub mod seats;

pub use options::{Filter, Players, RoomOptions, TurnTime};
