//! Peer-to-peer networking over libp2p: how phones on one Wi-Fi find each
//! other, join a room and exchange the game log's messages, in order and
//! acknowledged, over real sockets. docs/net.md describes the wire level.
//!
//! - [`identity`]: the player's key, kept crash-safely on disk.
//! - [`ticket`]: the join ticket (link and QR code).
//! - [`code`]: the six-character room code.
//! - [`wire`]: the byte channel's frames and their bounded decoding.
//! - [`link`]: ordered, acknowledged delivery to one peer (no I/O).
//! - [`guard`]: how much a peer may send before it counts as flooding.
//! - [`backoff`]: when to dial a lost peer again.
//! - [`book`]: the peers' addresses saved beside a game, for resuming it.
//! - [`seen`]: how many phones and addresses a list of them keeps.
//! - [`swarm`]: the libp2p stack and its tuning.
//! - [`node`]: a running node: discovery, connections, the byte channel.
//! - [`nearby`]: `clovece nearby`, the phones mDNS finds.
//! - [`game`]: a networked game from start to end (`clovece host` /
//!   `clovece join`, the app's online game), or a saved one resumed.
//! - [`setup`]: seating everyone and signing the game's header.
//! - [`play`]: playing a started game over the node.
//! - [`front`]: where this player's actions come from and where the
//!   game's progress goes.
//! - [`lines`]: the headless front: output lines, the computer or the
//!   terminal.
//! - [`terminal`]: playing one's seat by hand on the terminal.
//! - [`room`]: the lobby: finding a room by code, joining open and private
//!   rooms.

pub mod backoff;
pub mod book;
pub mod code;
pub mod front;
pub mod game;
pub mod guard;
pub mod identity;
pub mod lines;
pub mod link;
pub mod nearby;
pub mod node;
mod play;
pub mod room;
pub mod seen;
mod setup;
pub mod swarm;
pub mod terminal;
pub mod ticket;
pub mod wire;

pub use code::RoomCode;
pub use node::{Config, Event, NetError, Node, Sighting};
pub use setup::nickname;
pub use ticket::{RoomId, RoomSecret, Ticket};
