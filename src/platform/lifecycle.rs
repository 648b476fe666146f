//! What the app does when the operating system moves it to the background
//! and back, or stops it to free memory.
//!
//! A phone app is paused whenever the player switches apps or the screen
//! turns off, and may then be killed without warning; the game must survive
//! both. Nothing here saves the game itself: the protocol layer's store
//! appends every log entry to disk and syncs it before it is acted on, and
//! the game on this device is kept after each step (`app::local`), so a
//! killed app loses nothing. What the operating system keeps for us is only
//! a [`Bookmark`]: which screen was open and which game or room it showed,
//! so that a recreated app reopens that game from its store instead of the
//! home screen.
//!
//! In the background the app holds nothing that costs battery or that the
//! operating system takes away: the multicast lock is released and the
//! camera stopped; both come back on return if still wanted. The screen's
//! idle timeout, which is what pauses an app nobody touches, is switched
//! off while a room or a game is shown ([`super::awake`]).

use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use super::PlatformError;
use super::awake::{NoTimeout, ScreenTimeout};
use super::camera::{CameraError, CameraSession};
use super::multicast::Multicast;

/// The screen to reopen after the operating system recreated the app.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "screen", rename_all = "lowercase")]
pub enum Bookmark {
    /// The home screen (also what anything unreadable restores to).
    #[default]
    Home,
    /// The lobby of the room of this join ticket (its link), and the
    /// folder (under the app's data) where its game is kept once it
    /// starts: Android keeps the bookmark of the moment the app went to
    /// the background, and the room may start its game after that.
    Room {
        ticket: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        store: Option<String>,
    },
    /// The game whose store is in this folder (under the app's data).
    Game { store: String },
    /// The game on this device, which the app keeps in its data folder.
    Local,
}

/// The longest saved state read back; the operating system keeps it in
/// memory, so ours is small (a ticket link is under 2 KiB).
const MAX_SAVED: usize = 4096;

impl Bookmark {
    /// The bytes handed to the operating system to keep.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a bookmark serialises to memory")
    }

    /// The bookmark in bytes the operating system kept; [`Bookmark::Home`]
    /// for none, or for bytes from another version that do not read.
    pub fn from_bytes(bytes: &[u8]) -> Bookmark {
        if bytes.len() > MAX_SAVED {
            return Bookmark::Home;
        }
        serde_json::from_slice(bytes).unwrap_or_default()
    }
}

/// The app's side of the platform's life events, shared between the UI
/// thread (which moves the bookmark and opens the camera) and the thread
/// the operating system's events arrive on.
#[derive(Clone)]
pub struct Lifecycle(Arc<Mutex<Inner>>);

struct Inner {
    multicast: Multicast,
    camera: CameraSession,
    screen: Box<dyn ScreenTimeout>,
    bookmark: Bookmark,
    /// A bookmark the operating system gave back before the app asked
    /// to hear of it.
    restored: Option<Bookmark>,
    /// How the app reopens a restored bookmark's screen.
    reopen: Option<Reopen>,
    /// Who hears the app move to the background (false) and back (true).
    foreground: Option<Foreground>,
}

type Reopen = Arc<dyn Fn(Bookmark) + Send + Sync>;
type Foreground = Arc<dyn Fn(bool) + Send + Sync>;

impl Lifecycle {
    /// A lifecycle with no say over the screen's timeout (a desktop's);
    /// see [`with_screen`](Self::with_screen).
    pub fn new(multicast: Multicast, camera: CameraSession, bookmark: Bookmark) -> Lifecycle {
        Lifecycle(Arc::new(Mutex::new(Inner {
            multicast,
            camera,
            screen: Box::new(NoTimeout),
            bookmark,
            restored: None,
            reopen: None,
            foreground: None,
        })))
    }

    /// The same, with the platform's switch for the screen's timeout.
    pub fn with_screen(self, screen: impl ScreenTimeout + 'static) -> Lifecycle {
        self.inner().screen = Box::new(screen);
        self
    }

    /// The app went to the background: release what costs battery.
    pub fn pause(&self) -> Result<(), PlatformError> {
        let (camera, multicast) = self.set_foreground(false);
        multicast?;
        Ok(camera?)
    }

    /// The app is in the foreground again: take back what is still wanted.
    /// A camera start that waited for the permission is tried again here.
    pub fn resume(&self) -> Result<(), PlatformError> {
        let (camera, multicast) = self.set_foreground(true);
        camera?;
        multicast
    }

    /// Moves the camera and the multicast lock to the foreground or the
    /// background (both, even if one fails), then tells the app.
    fn set_foreground(
        &self,
        foreground: bool,
    ) -> (Result<(), CameraError>, Result<(), PlatformError>) {
        let (camera, multicast, heard) = {
            let mut inner = self.inner();
            let camera = inner.camera.set_foreground(foreground);
            let multicast = inner.multicast.set_foreground(foreground);
            (camera, multicast, inner.foreground.clone())
        };
        // Outside the lock, as `restore`'s reopening.
        if let Some(heard) = heard {
            heard(foreground);
        }
        (camera, multicast)
    }

    /// Has `heard` hear each move of the app to the background (`false`)
    /// and back (`true`), outside the lifecycle's lock.
    pub fn on_foreground(&self, heard: impl Fn(bool) + Send + Sync + 'static) {
        self.inner().foreground = Some(Arc::new(heard));
    }

    /// The operating system asks what to keep in case it kills the app.
    pub fn save(&self) -> Vec<u8> {
        self.inner().bookmark.to_bytes()
    }

    /// The operating system recreated the app and gave back what
    /// [`save`](Self::save) handed it.
    pub fn restore(&self, bytes: &[u8]) {
        let bookmark = Bookmark::from_bytes(bytes);
        let reopen = {
            let mut inner = self.inner();
            inner.bookmark = bookmark.clone();
            match inner.reopen.clone() {
                Some(reopen) => reopen,
                None => {
                    inner.restored = Some(bookmark);
                    return;
                }
            }
        };
        // Outside the lock: the app may move the bookmark as it reopens.
        reopen(bookmark);
    }

    /// Has `reopen` open the screen of a bookmark that the operating
    /// system gives back: at once if it already did, else when it does.
    pub fn on_restore(&self, reopen: impl Fn(Bookmark) + Send + Sync + 'static) {
        let reopen: Reopen = Arc::new(reopen);
        let restored = {
            let mut inner = self.inner();
            inner.reopen = Some(reopen.clone());
            inner.restored.take()
        };
        if let Some(bookmark) = restored {
            reopen(bookmark);
        }
    }

    /// Keeps the screen on (a room or a game is shown) or lets it go off
    /// after the phone's idle time (any other screen).
    pub fn keep_screen_on(&self, on: bool) -> Result<(), PlatformError> {
        self.inner().screen.keep_on(on)
    }

    /// The app moved to another screen.
    pub fn set_bookmark(&self, bookmark: Bookmark) {
        self.inner().bookmark = bookmark;
    }

    pub fn bookmark(&self) -> Bookmark {
        self.inner().bookmark.clone()
    }

    /// The camera, for the scan screen to open and close.
    pub fn with_camera<R>(&self, f: impl FnOnce(&mut CameraSession) -> R) -> R {
        f(&mut self.inner().camera)
    }

    pub fn multicast(&self) -> Multicast {
        self.inner().multicast.clone()
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}
