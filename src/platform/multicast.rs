//! Holding the operating system's multicast switch only while someone needs
//! it.
//!
//! Android drops incoming multicast (and so every mDNS answer) unless the
//! app holds a `WifiManager.MulticastLock`; holding it keeps the Wi-Fi chip
//! awake and drains the battery. The lock is wanted while the nearby list is
//! open or a game is running (either may take a [`MulticastHold`]), and only
//! while the app is in the foreground. [`Multicast`] counts the holds and
//! reconciles the operating system's lock with what is wanted after every
//! change, so the platform's [`MulticastLock`] only ever sees a plain on/off
//! switch. Desktops and iOS need no lock ([`NoLock`]).

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use super::PlatformError;

/// The operating system's on/off switch for receiving multicast. Calls
/// alternate: [`acquire`](Self::acquire) is only called while released,
/// [`release`](Self::release) only while acquired.
pub trait MulticastLock: Send {
    fn acquire(&mut self) -> Result<(), PlatformError>;
    fn release(&mut self) -> Result<(), PlatformError>;
}

/// A platform that receives multicast without asking (desktops, iOS).
#[derive(Debug, Default)]
pub struct NoLock;

impl MulticastLock for NoLock {
    fn acquire(&mut self) -> Result<(), PlatformError> {
        Ok(())
    }

    fn release(&mut self) -> Result<(), PlatformError> {
        Ok(())
    }
}

struct State {
    lock: Box<dyn MulticastLock>,
    holds: usize,
    foreground: bool,
    /// Whether the operating system's lock is acquired, as far as we know:
    /// a failed call leaves it as it was, and the next change tries again.
    acquired: bool,
}

impl State {
    fn wanted(&self) -> bool {
        self.holds > 0 && self.foreground
    }

    /// Makes the operating system's lock match what is wanted.
    fn reconcile(&mut self) -> Result<(), PlatformError> {
        let wanted = self.wanted();
        if wanted != self.acquired {
            if wanted {
                self.lock.acquire()?;
            } else {
                self.lock.release()?;
            }
            self.acquired = wanted;
        }
        Ok(())
    }
}

/// The shared, counted multicast switch (see the module documentation).
/// Clones share one lock. The app starts in the foreground.
#[derive(Clone)]
pub struct Multicast(Arc<Mutex<State>>);

impl Multicast {
    pub fn new(lock: impl MulticastLock + 'static) -> Multicast {
        Multicast(Arc::new(Mutex::new(State {
            lock: Box::new(lock),
            holds: 0,
            foreground: true,
            acquired: false,
        })))
    }

    /// Takes a hold: the lock is acquired now (if in the foreground) and
    /// kept until every hold is dropped. If the lock cannot be acquired, no
    /// hold is taken.
    pub fn hold(&self) -> Result<MulticastHold, PlatformError> {
        let mut state = self.state();
        state.holds += 1;
        if let Err(e) = state.reconcile() {
            state.holds -= 1;
            return Err(e);
        }
        Ok(MulticastHold(self.clone()))
    }

    /// Tells whether the app is in the foreground: in the background the
    /// lock is released whatever the holds, and taken again on return.
    pub fn set_foreground(&self, foreground: bool) -> Result<(), PlatformError> {
        let mut state = self.state();
        state.foreground = foreground;
        state.reconcile()
    }

    /// Whether the operating system's lock is acquired.
    pub fn is_acquired(&self) -> bool {
        self.state().acquired
    }

    /// How many holds are taken.
    pub fn holds(&self) -> usize {
        self.state().holds
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while the mutex was held cannot leave the counts
        // inconsistent (they change after the fallible call), so a poisoned
        // lock is still usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl fmt::Debug for Multicast {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state();
        f.debug_struct("Multicast")
            .field("holds", &state.holds)
            .field("foreground", &state.foreground)
            .field("acquired", &state.acquired)
            .finish()
    }
}

/// One reason to receive multicast; dropping it gives the reason up.
#[derive(Debug)]
#[must_use = "the multicast lock is given up when the hold is dropped"]
pub struct MulticastHold(Multicast);

impl Drop for MulticastHold {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.holds -= 1;
        // A failed release leaves the lock marked acquired, so the next
        // change (a new hold, going to the background) releases it again.
        let _ = state.reconcile();
    }
}
