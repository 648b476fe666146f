//! iOS: discovery through the system's Bonjour instead of libp2p's raw
//! multicast sockets, which need Apple's multicast entitlement (granted
//! rarely and only on request). Joining by the host's ticket works as on
//! every platform.
//!
//! Not done yet: the camera (AVFoundation frames into the same
//! [`TicketScanner`](super::camera::TicketScanner)); until then an iPhone
//! finds rooms nearby through Bonjour, or joins by pasting the ticket link.

mod bonjour;

pub use bonjour::Bonjour;

use super::Platform;
use super::camera::{CameraSession, NoCamera, NoPermissionNeeded};
use super::lifecycle::{Bookmark, Lifecycle};
use super::multicast::{Multicast, NoLock};

impl Platform {
    /// An iPhone or iPad: Bonjour discovery, no multicast lock, the data
    /// folder found the usual way (the app container's Application Support).
    pub fn ios() -> Platform {
        Platform {
            data_dir: None,
            discovery: Box::new(Bonjour::default()),
            lifecycle: Lifecycle::new(
                Multicast::new(NoLock),
                CameraSession::new(NoCamera, NoPermissionNeeded),
                Bookmark::Home,
            ),
        }
    }
}
