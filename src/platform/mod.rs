//! What differs between desktops, Android and iOS, behind small traits, so
//! that the app and the network layer are the same everywhere and the logic
//! around the operating system's calls is tested on Linux with fakes.
//!
//! - [`multicast`]: holding Android's Wi-Fi multicast lock only while
//!   discovery needs it.
//! - [`discovery`]: libp2p's mDNS (desktop, Android) or Bonjour (iOS).
//! - [`camera`]: camera frames to the QR decoder, stopped in the background.
//! - [`qr`]: grey-scale pictures → QR code text → join ticket.
//! - [`preview`]: a camera frame turned upright for the scan screen.
//! - [`lifecycle`]: pause, resume and the bookmark the system keeps.
//! - [`awake`]: the screen kept on while a room or a game is shown.
//!
//! The platform implementations are compiled only for their platform:
//! `android` (JNI and the NDK; `jvm` holds the JNI calls, also compiled for
//! this crate's tests, which run them in a desktop JVM) and `ios` (Bonjour,
//! AVFoundation). [`Platform::desktop`] is what a desktop (and every test)
//! uses.

pub mod awake;
pub mod camera;
pub mod discovery;
pub mod lifecycle;
pub mod multicast;
pub mod preview;
pub mod qr;

#[cfg(target_os = "android")]
pub mod android;
#[cfg(target_os = "ios")]
pub mod ios;
#[cfg(any(target_os = "android", test))]
pub mod jvm;

use std::path::PathBuf;
use std::sync::Arc;

use camera::{CameraError, CameraSession, NoCamera, NoPermissionNeeded};
use discovery::{Discovery, SwarmMdns};
use lifecycle::{Bookmark, Lifecycle};
use multicast::{Multicast, NoLock};

/// Why a platform service failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlatformError {
    #[error(transparent)]
    Camera(#[from] CameraError),
    #[error("cannot hold the Wi-Fi multicast lock: {0}")]
    Multicast(String),
    /// Bonjour (iOS) failed; shown after a lead that says what could not
    /// be done.
    #[error("Bonjour: {0}")]
    Discovery(String),
    #[error("cannot reach the Android system: {0}")]
    System(String),
    #[error("cannot keep the screen on: {0}")]
    Screen(String),
}

/// Everything the app gets from the platform it runs on.
pub struct Platform {
    /// Where the app keeps its settings and games, when the platform says so
    /// (Android's app-private folder; on iOS the usual one, marked to stay
    /// out of backups); `None` where the usual per-user data folder lookup
    /// is all there is to it (desktops).
    pub data_dir: Option<PathBuf>,
    /// How phones nearby are found: shared, since the nearby list and a
    /// hosted room each run a discovery of their own.
    pub discovery: Arc<dyn Discovery>,
    /// Pause/resume handling, the camera and the bookmark.
    pub lifecycle: Lifecycle,
}

impl Platform {
    /// A desktop: libp2p's mDNS with no lock to hold, no camera (a QR code
    /// is read from an image file, or the ticket pasted), nothing restored.
    pub fn desktop() -> Platform {
        let multicast = Multicast::new(NoLock);
        Platform {
            data_dir: None,
            discovery: Arc::new(SwarmMdns::new(multicast.clone())),
            lifecycle: Lifecycle::new(
                multicast,
                CameraSession::new(NoCamera, NoPermissionNeeded),
                Bookmark::Home,
            ),
        }
    }
}
