//! iOS: discovery through the system's Bonjour instead of libp2p's raw
//! multicast sockets, which need Apple's multicast entitlement (granted
//! rarely and only on request), and the camera through AVFoundation into
//! the same [`TicketScanner`](super::camera::TicketScanner) as on Android.
//! Joining by the host's ticket link works as on every platform.

mod bonjour;
mod camera;

pub use bonjour::Bonjour;
pub use camera::{AvCamera, AvPermission, OnAnswer};

use objc2::MainThreadMarker;
use objc2_ui_kit::UIApplication;

use super::awake::ScreenTimeout;
use super::camera::CameraSession;
use super::lifecycle::{Bookmark, Lifecycle};
use super::multicast::{Multicast, NoLock};
use super::{Platform, PlatformError};

impl Platform {
    /// An iPhone or iPad: Bonjour discovery, no multicast lock, the
    /// AVFoundation camera, the data folder found the usual way (the app
    /// container's Application Support).
    pub fn ios() -> Platform {
        let answered = OnAnswer::default();
        let camera = CameraSession::new(AvCamera::default(), AvPermission::new(answered.clone()));
        let lifecycle =
            Lifecycle::new(Multicast::new(NoLock), camera, Bookmark::Home).with_screen(IdleTimer);
        let resume = lifecycle.clone();
        *answered.lock().unwrap_or_else(|p| p.into_inner()) = Some(Box::new(move || {
            // The permission dialog's answer: start the camera if the scan
            // screen is still open (and the answer was yes).
            if let Err(e) = resume.resume() {
                eprintln!("clovece: camera: {e}");
            }
        }));
        Platform {
            data_dir: None,
            discovery: std::sync::Arc::new(Bonjour),
            lifecycle,
        }
    }
}

/// `UIApplication.idleTimerDisabled`, which UIKit lets only the main thread
/// set; the app switches it from its UI, which runs there.
struct IdleTimer;

impl ScreenTimeout for IdleTimer {
    fn keep_on(&mut self, on: bool) -> Result<(), PlatformError> {
        let main = MainThreadMarker::new()
            .ok_or_else(|| PlatformError::Screen("not called on the main thread".into()))?;
        UIApplication::sharedApplication(main).setIdleTimerDisabled(on);
        Ok(())
    }
}
