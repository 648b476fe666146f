//! The camera that scans the host's QR code, behind a trait: Android's
//! camera2 (through the NDK) and iOS's AVFoundation hand grey-scale frames to
//! the same [`TicketScanner`]; desktops have no camera and read a screenshot
//! or pasted ticket text instead.
//!
//! [`CameraSession`] keeps the camera off while the app is in the
//! background (the operating system takes it away anyway) and starts it
//! again on return while the scan screen is still open. It also asks for
//! the camera permission: once each time the scan screen opens. The
//! permission dialog pauses the app and resumes it when answered, and that
//! resume tries the start again; a second refusal in the same opening is
//! reported as [`CameraError::Denied`] instead of asking in a loop.

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard};

use super::qr::{GreyFrame, Scan};

/// Receives the camera's frames, on the camera's own thread. A frame is
/// only borrowed for the call; frames that arrive while one is handled are
/// dropped by the camera (it keeps only the newest). A sink must not stop
/// the camera itself (stopping waits for a frame being handed on, on
/// Android and iOS alike): it hands what it found to the UI thread, which
/// closes the scan screen.
pub type FrameSink = Arc<dyn Fn(GreyFrame<'_>) + Send + Sync>;

/// Hears why the camera could not start again after the app returned to
/// the foreground (the permission refused in the dialog, the camera
/// gone), or why a running camera stopped (another app took it), so that
/// the open scan screen says so instead of waiting.
pub type ErrorSink = Arc<dyn Fn(CameraError) + Send + Sync>;

/// Lets a camera's frames through until the camera stops. A frame holds
/// its pass while it is handed on, and closing waits for that frame, so
/// none reaches the sink once [`close`](Self::close) returns (Android's
/// reader and iOS's session both stop later, on threads of their own).
#[derive(Debug, Default)]
pub struct FrameGate(Mutex<bool>);

impl FrameGate {
    /// The pass of one frame, or `None` once closed.
    pub fn pass(&self) -> Option<MutexGuard<'_, bool>> {
        let closed = self.lock();
        (!*closed).then_some(closed)
    }

    /// Lets no more frames through (waiting out one being handed on).
    pub fn close(&self) {
        *self.lock() = true;
    }

    pub fn is_closed(&self) -> bool {
        *self.lock()
    }

    fn lock(&self) -> MutexGuard<'_, bool> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Why the camera does not deliver frames.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CameraError {
    /// The operating system now asks the player for the camera permission;
    /// the start is tried again when the app returns to the foreground
    /// (the scan screen shows that it waits for the answer).
    #[error("waiting for the permission to use the camera")]
    AskingPermission,
    #[error("the camera permission was refused; allow it in the system settings to scan a code")]
    Denied,
    #[error("this device has no camera that can scan a code")]
    NoCamera,
    #[error("the camera failed: {0}")]
    Failed(String),
}

/// The operating system's camera permission.
pub trait CameraPermission: Send {
    fn granted(&self) -> bool;
    /// Shows the system's permission dialog; the answer arrives as a
    /// resume of the app.
    fn request(&mut self) -> Result<(), CameraError>;
}

/// A platform that needs no permission for its camera (or has none).
#[derive(Debug, Default)]
pub struct NoPermissionNeeded;

impl CameraPermission for NoPermissionNeeded {
    fn granted(&self) -> bool {
        true
    }

    fn request(&mut self) -> Result<(), CameraError> {
        Ok(())
    }
}

/// A camera that can deliver grey-scale frames.
pub trait Camera: Send {
    /// Starts delivering frames from the back camera to `sink` (replacing
    /// any earlier sink) until [`stop`](Self::stop); `errors` hears if the
    /// camera stops by itself meanwhile.
    fn start(&mut self, sink: FrameSink, errors: ErrorSink) -> Result<(), CameraError>;
    /// Stops delivering frames; a no-op when stopped.
    fn stop(&mut self);
}

/// A platform with no camera: desktops.
#[derive(Debug, Default)]
pub struct NoCamera;

impl Camera for NoCamera {
    fn start(&mut self, _: FrameSink, _: ErrorSink) -> Result<(), CameraError> {
        Err(CameraError::NoCamera)
    }

    fn stop(&mut self) {}
}

/// The camera as the scan screen wants it (see the module documentation).
pub struct CameraSession {
    camera: Box<dyn Camera>,
    permission: Box<dyn CameraPermission>,
    /// The sinks while the scan screen is open.
    wanted: Option<(FrameSink, ErrorSink)>,
    /// Whether the permission was asked for since the screen opened.
    asked: bool,
    running: bool,
    foreground: bool,
}

impl CameraSession {
    /// A session for `camera`, closed, with the app in the foreground.
    pub fn new(
        camera: impl Camera + 'static,
        permission: impl CameraPermission + 'static,
    ) -> CameraSession {
        CameraSession {
            camera: Box::new(camera),
            permission: Box::new(permission),
            wanted: None,
            asked: false,
            running: false,
            foreground: true,
        }
    }

    /// The scan screen opened: frames go to `sink` from now on (or, while
    /// the permission is asked for, once it is granted); `errors` hears
    /// when a later start fails.
    pub fn open(&mut self, sink: FrameSink, errors: ErrorSink) -> Result<(), CameraError> {
        self.close();
        self.wanted = Some((sink, errors));
        self.asked = false;
        self.reconcile()
    }

    /// The scan screen closed.
    pub fn close(&mut self) {
        self.wanted = None;
        // Stopping cannot fail, so reconciling cannot either.
        let _ = self.reconcile();
    }

    /// The app moved to the foreground or the background.
    pub fn set_foreground(&mut self, foreground: bool) -> Result<(), CameraError> {
        self.foreground = foreground;
        let started = self.reconcile();
        if let (Err(e), Some((_, errors))) = (&started, &self.wanted) {
            errors(e.clone());
        }
        started
    }

    /// The permission dialog was answered where the answer may come after
    /// the app is back in the foreground (iOS): the camera starts if still
    /// wanted and now allowed.
    pub fn retry(&mut self) -> Result<(), CameraError> {
        self.set_foreground(self.foreground)
    }

    pub fn is_running(&self) -> bool {
        self.running
    }

    fn reconcile(&mut self) -> Result<(), CameraError> {
        match (&self.wanted, self.foreground, self.running) {
            (Some((sink, errors)), true, false) => {
                if !self.permission.granted() {
                    if self.asked {
                        return Err(CameraError::Denied);
                    }
                    self.asked = true;
                    self.permission.request()?;
                    return Err(CameraError::AskingPermission);
                }
                self.camera.start(sink.clone(), errors.clone())?;
                self.running = true;
            }
            (None, _, true) | (_, false, true) => {
                self.camera.stop();
                self.running = false;
            }
            _ => {}
        }
        Ok(())
    }
}

impl fmt::Debug for CameraSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CameraSession")
            .field("open", &self.wanted.is_some())
            .field("running", &self.running)
            .field("foreground", &self.foreground)
            .finish()
    }
}

/// Turns camera frames into a ticket: every frame is decoded, and `report`
/// hears what is in view each time that changes (so a code held still is
/// reported once, not thirty times a second).
pub struct TicketScanner<T, F> {
    last: Mutex<Scan<T>>,
    report: F,
}

impl<T, F> TicketScanner<T, F>
where
    T: FromStr + Clone + PartialEq + Send + 'static,
    F: Fn(Scan<T>) + Send + Sync + 'static,
{
    pub fn new(report: F) -> TicketScanner<T, F> {
        TicketScanner {
            last: Mutex::new(Scan::Nothing),
            report,
        }
    }

    /// Looks at one frame.
    pub fn frame(&self, frame: GreyFrame<'_>) {
        let scan = frame.scan::<T>();
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if *last != scan {
            *last = scan.clone();
            drop(last);
            (self.report)(scan);
        }
    }

    /// The scanner as a camera's frame sink.
    pub fn into_sink(self) -> FrameSink {
        Arc::new(move |frame| self.frame(frame))
    }
}
