//! iOS: discovery through the system's Bonjour instead of libp2p's raw
//! multicast sockets, which need Apple's multicast entitlement (granted
//! rarely and only on request), and the camera through AVFoundation into
//! the same [`TicketScanner`](super::camera::TicketScanner) as on Android.
//! Joining by the host's ticket link works as on every platform. The
//! app's data stays out of backups, as on Android.

mod bonjour;
mod camera;

pub use bonjour::Bonjour;
pub use camera::{AvCamera, AvPermission, OnAnswer};

use std::path::{Path, PathBuf};
use std::ptr::NonNull;

use block2::RcBlock;
use objc2::MainThreadMarker;
use objc2::runtime::AnyObject;
use objc2_foundation::{
    NSNotification, NSNotificationCenter, NSNumber, NSOperationQueue, NSString, NSURL,
    NSURLIsExcludedFromBackupKey,
};
use objc2_ui_kit::{
    UIApplication, UIApplicationDidBecomeActiveNotification,
    UIApplicationWillResignActiveNotification,
};

use super::awake::ScreenTimeout;
use super::camera::CameraSession;
use super::lifecycle::{Bookmark, Lifecycle};
use super::multicast::{Multicast, NoLock};
use super::{Platform, PlatformError};

impl Platform {
    /// An iPhone: Bonjour discovery, no multicast lock, the AVFoundation
    /// camera, the data folder in the app container's Application Support,
    /// kept out of backups.
    pub fn ios() -> Platform {
        let answered = OnAnswer::default();
        let camera = CameraSession::new(AvCamera::default(), AvPermission::new(answered.clone()));
        let lifecycle =
            Lifecycle::new(Multicast::new(NoLock), camera, Bookmark::Home).with_screen(IdleTimer);
        let retry = lifecycle.clone();
        *answered.lock().unwrap_or_else(|p| p.into_inner()) = Some(Box::new(move || {
            // The permission dialog's answer: start the camera if the scan
            // screen is still open (and the answer was yes). The app did
            // not move, so the lifecycle is not told it did.
            if let Err(e) = retry.with_camera(CameraSession::retry) {
                eprintln!("clovece: camera: {e}");
            }
        }));
        follow_the_app(&lifecycle);
        Platform {
            data_dir: data_folder(),
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

/// The app's data folder (settings, statistics, games), kept out of iCloud
/// backups and moves to a new iPhone: a game's store holds this phone's
/// dice secret, which must not reappear on another phone. `None` where the
/// system names no such folder; a folder that cannot be marked is still
/// used (the failure is logged).
fn data_folder() -> Option<PathBuf> {
    let folder = crate::durable::default_dir()?;
    let marked = std::fs::create_dir_all(&folder)
        .map_err(|e| e.to_string())
        .and_then(|()| exclude_from_backup(&folder));
    if let Err(e) = marked {
        eprintln!(
            "clovece: cannot keep {} out of backups: {e}",
            folder.display()
        );
    }
    Some(folder)
}

/// Sets `NSURLIsExcludedFromBackupKey` on `folder` (and so on everything
/// in it).
fn exclude_from_backup(folder: &Path) -> Result<(), String> {
    let path = folder.to_str().ok_or("the path is not UTF-8")?;
    let url = NSURL::fileURLWithPath(&NSString::from_str(path));
    let yes = NSNumber::numberWithBool(true);
    let value: &AnyObject = &yes;
    // SAFETY: the key takes an NSNumber holding a BOOL, as Apple documents.
    unsafe { url.setResourceValue_forKey_error(Some(value), NSURLIsExcludedFromBackupKey) }
        .map_err(|e| e.localizedDescription().to_string())
}

/// Tells `lifecycle` when the app stops being the one in front and when
/// it is again, as Android's activity pause and resume do: the camera
/// stops and starts again, and a pass-and-play turn timer waits while
/// nobody sees the board. That is iOS's active state, which Control
/// Center, the app switcher or a call's screen also take (the background
/// comes after resigning it, and the foreground before becoming it). The
/// observers last as long as the app.
fn follow_the_app(lifecycle: &Lifecycle) {
    let center = NSNotificationCenter::defaultCenter();
    let main = NSOperationQueue::mainQueue();
    // SAFETY: UIKit's notification names, constant for the process.
    let events = unsafe {
        [
            (UIApplicationWillResignActiveNotification, false),
            (UIApplicationDidBecomeActiveNotification, true),
        ]
    };
    for (name, foreground) in events {
        let lifecycle = lifecycle.clone();
        let heard = RcBlock::new(move |_: NonNull<NSNotification>| {
            let moved = if foreground {
                lifecycle.resume()
            } else {
                lifecycle.pause()
            };
            if let Err(e) = moved {
                eprintln!("clovece: {e}");
            }
        });
        // SAFETY: no object to filter on; the block holds only a
        // `Lifecycle` (Send and Sync) and runs on the main queue.
        let observer = unsafe {
            center.addObserverForName_object_queue_usingBlock(Some(name), None, Some(&main), &heard)
        };
        // Nothing ever removes it: it lives as long as the app.
        std::mem::forget(observer);
    }
}
