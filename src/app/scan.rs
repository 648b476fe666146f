//! The scan screen: the host's QR code, read by the phone's camera (or, on a
//! desktop, from a picture file), joins its room.
//!
//! The camera's frames go through the platform's [`TicketScanner`] on the
//! camera's thread; what it sees reaches the UI thread through
//! `upgrade_in_event_loop`. A ticket found closes the camera and is handed
//! to `AppAdapter.join-room`, which the room screen answers. Each frame is
//! also shown, turned upright ([`preview`]), in the viewfinder: only the
//! newest picture waits for the UI thread ([`Newest`]), so a busy UI skips
//! pictures instead of queueing them. A picture file is read on a thread of
//! its own too (a photo takes a while to decode); only the newest asked for
//! while the screen is open is shown.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use slint::{ComponentHandle, Image, Rgb8Pixel, SharedPixelBuffer};

use super::join::Entry;
use super::ui::{self, AppAdapter, AppWindow, ScanAdapter};
use crate::net::Ticket;
use crate::platform::camera::{CameraError, ErrorSink, FrameSink, TicketScanner};
use crate::platform::lifecycle::Lifecycle;
use crate::platform::preview::{PREVIEW_SIDE, preview};
use crate::platform::qr::{self, Scan};

/// A camera picture for the viewfinder.
pub type Picture = SharedPixelBuffer<Rgb8Pixel>;

/// What the camera or a picture showed.
pub type Seen = Scan<Ticket>;

/// What the camera tells the scan screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Report {
    /// The first frame arrived: the camera runs. (After the permission
    /// dialog it starts on the app's return, with no call from the screen.)
    Looking,
    /// What is in view changed.
    Seen(Seen),
    /// The camera could not start again on the app's return (the
    /// permission was refused in the dialog, say).
    Stopped(CameraError),
}

/// The camera side of the scan screen.
#[derive(Clone)]
pub struct Scanner {
    lifecycle: Lifecycle,
}

impl Scanner {
    pub fn new(lifecycle: Lifecycle) -> Scanner {
        Scanner { lifecycle }
    }

    /// Opens the camera; `report` hears (on the camera's thread) when the
    /// first frame arrives (the first after each failure too) and each
    /// time what is in view changes, and
    /// `show` gets every frame as an upright picture (before it is
    /// decoded, so the viewfinder does not wait for the decoder). An error
    /// says why no frames come yet (no camera, the permission asked for or
    /// refused).
    pub fn open(
        &self,
        report: impl Fn(Report) + Send + Sync + 'static,
        show: impl Fn(Picture) + Send + Sync + 'static,
    ) -> Result<(), CameraError> {
        let report = Arc::new(report);
        let started = Arc::new(AtomicBool::new(false));
        let (stopped, again) = (report.clone(), started.clone());
        let errors: ErrorSink = Arc::new(move |e| {
            // The first frame once the camera runs again (on the app's
            // return) says so, or the screen would go on saying why not.
            again.store(false, Ordering::Relaxed);
            stopped(Report::Stopped(e));
        });
        let seen = report.clone();
        let scanner = TicketScanner::new(move |s| seen(Report::Seen(s)));
        let sink: FrameSink = Arc::new(move |frame| {
            if !started.swap(true, Ordering::Relaxed) {
                report(Report::Looking);
            }
            show(preview(&frame, PREVIEW_SIDE));
            scanner.frame(frame);
        });
        self.lifecycle
            .with_camera(|camera| camera.open(sink, errors))
    }

    /// Closes the camera (the screen closed, or a ticket was found).
    pub fn close(&self) {
        self.lifecycle.with_camera(|camera| camera.close());
    }
}

/// The newest of the values one thread hands another, with no queue:
/// [`put`](Self::put) says when the taker must be woken (the slot was
/// empty); a value put before the taker came replaces the older one.
#[derive(Debug)]
pub struct Newest<T>(Mutex<Option<T>>);

impl<T> Default for Newest<T> {
    fn default() -> Newest<T> {
        Newest(Mutex::new(None))
    }
}

impl<T> Newest<T> {
    /// Keeps `value` for the taker; whether the taker needs waking.
    pub fn put(&self, value: T) -> bool {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        slot.replace(value).is_none()
    }

    pub fn take(&self) -> Option<T> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// Reads the QR code of a picture file (a desktop's screenshot or photo).
pub fn read_picture(path: &Path) -> Result<Seen, qr::FrameError> {
    qr::scan_file(path)
}

/// Wires the scan screen.
pub(super) fn connect(window: &AppWindow, scanner: Scanner) {
    let adapter = window.global::<ScanAdapter>();
    // Counts the pictures asked for and the screen's openings and
    // closings: a picture read is shown only if nothing came since.
    let asked = Arc::new(AtomicU64::new(0));
    // Counts the screen's openings and closings: what the camera saw is
    // acted on only while the screen it was opened for is open (a code
    // seen again, queued behind the one that joined, would join anew).
    let shown = Arc::new(AtomicU64::new(0));

    let (weak, camera, opened) = (window.as_weak(), scanner.clone(), asked.clone());
    let opening = shown.clone();
    adapter.on_open(move || {
        opened.fetch_add(1, Ordering::SeqCst);
        let this = opening.fetch_add(1, Ordering::SeqCst) + 1;
        let Some(window) = weak.upgrade() else { return };
        let (ui, shown) = (weak.clone(), opening.clone());
        let report = move |report: Report| {
            let shown = shown.clone();
            // Fails only once the window is gone; then nobody is looking.
            let _ = ui.upgrade_in_event_loop(move |w| {
                if shown.load(Ordering::SeqCst) != this {
                    return;
                }
                match report {
                    Report::Looking => show_camera(&w, Ok(())),
                    Report::Seen(seen) => show_seen(&w, seen),
                    Report::Stopped(why) => show_camera(&w, Err(why)),
                }
            });
        };
        let (newest, ui) = (Arc::new(Newest::<Picture>::default()), weak.clone());
        let show = move |picture| {
            if newest.put(picture) {
                let newest = newest.clone();
                // As above: fails only once the window is gone.
                let _ = ui.upgrade_in_event_loop(move |w| {
                    if let Some(picture) = newest.take() {
                        w.global::<ScanAdapter>()
                            .set_preview(Image::from_rgb8(picture));
                    }
                });
            }
        };
        window.global::<ScanAdapter>().set_preview(Image::default());
        show_camera(&window, camera.open(report, show));
        window
            .global::<ScanAdapter>()
            .set_seen(ui::SeenKind::Nothing);
    });

    let (camera, closed) = (scanner.clone(), asked.clone());
    adapter.on_close(move || {
        closed.fetch_add(1, Ordering::SeqCst);
        shown.fetch_add(1, Ordering::SeqCst);
        camera.close();
    });

    let weak = window.as_weak();
    adapter.on_read_picture(move |path| {
        let this = asked.fetch_add(1, Ordering::SeqCst) + 1;
        let (ui, camera, asked) = (weak.clone(), scanner.clone(), asked.clone());
        let path = PathBuf::from(path.trim());
        let reading = std::thread::Builder::new().name("picture".into());
        let started = reading.spawn(move || {
            let read = read_picture(&path);
            // Fails only once the window is gone; then nobody is looking.
            let _ = ui.upgrade_in_event_loop(move |window| {
                if asked.load(Ordering::SeqCst) != this {
                    return;
                }
                match read {
                    Ok(seen) => {
                        camera.close();
                        show_seen(&window, seen);
                    }
                    Err(e) => unreadable(&window, &e.to_string()),
                }
            });
        });
        if let (Err(e), Some(window)) = (started, weak.upgrade()) {
            unreadable(&window, &e.to_string());
        }
    });
}

/// Says that the picture file cannot be read, and why.
fn unreadable(window: &AppWindow, why: &str) {
    let adapter = window.global::<ScanAdapter>();
    adapter.set_seen(ui::SeenKind::Unreadable);
    adapter.set_detail(why.into());
}

/// Shows whether the camera looks, or why not.
fn show_camera(window: &AppWindow, camera: Result<(), CameraError>) {
    let adapter = window.global::<ScanAdapter>();
    adapter.set_camera(match camera {
        Ok(()) => ui::ScanState::Looking,
        Err(CameraError::AskingPermission) => ui::ScanState::AskingPermission,
        Err(CameraError::Denied) => ui::ScanState::Denied,
        Err(CameraError::NoCamera) => ui::ScanState::NoCamera,
        Err(CameraError::Failed(why)) => {
            adapter.set_detail(why.into());
            ui::ScanState::Failed
        }
    });
}

/// Shows what was seen; a ticket closes the scan and joins its room.
fn show_seen(window: &AppWindow, seen: Seen) {
    let adapter = window.global::<ScanAdapter>();
    match seen {
        Scan::Nothing => adapter.set_seen(ui::SeenKind::Nothing),
        // Read as the join screen reads a pasted text: a link among other
        // words joins too, and what is wrong is said in the player's
        // language.
        Scan::Other { text } => match Entry::read(&text) {
            Entry::Ticket(ticket) => join(window, &ticket),
            Entry::DamagedTicket => adapter.set_seen(ui::SeenKind::DamagedTicket),
            Entry::NewerTicket => adapter.set_seen(ui::SeenKind::NewerTicket),
            _ => adapter.set_seen(ui::SeenKind::NotATicket),
        },
        Scan::Found(ticket) => join(window, &ticket),
    }
}

/// A ticket was seen: the scan closes and its room is joined.
fn join(window: &AppWindow, ticket: &Ticket) {
    let adapter = window.global::<ScanAdapter>();
    adapter.set_seen(ui::SeenKind::Ticket);
    adapter.invoke_close();
    window
        .global::<AppAdapter>()
        .invoke_join_room(ticket.to_string().into());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::RoomId;
    use crate::platform::camera::{Camera, CameraSession, NoPermissionNeeded};
    use crate::platform::lifecycle::Bookmark;
    use crate::platform::multicast::{Multicast, NoLock};
    use crate::platform::preview::Orientation;
    use crate::platform::qr::GreyFrame;
    use std::sync::Mutex;

    fn ticket() -> Ticket {
        let addr = "/ip4/127.0.0.1/tcp/4001".parse().unwrap();
        Ticket::new(
            RoomId::from_bytes([5; 16]),
            libp2p::PeerId::random(),
            [addr],
            None,
        )
        .unwrap()
    }

    /// The QR code of `text` as a grey picture: 4 pixels a module and a
    /// quiet zone of 4 modules, as a phone's camera sees a screen up close.
    fn picture(text: &str) -> (Vec<u8>, usize) {
        const SCALE: usize = 4;
        let code = qrcode::QrCode::new(text.as_bytes()).unwrap();
        let modules = code.width();
        let colors = code.to_colors();
        let side = (modules + 8) * SCALE;
        let mut pixels = vec![255; side * side];
        for (y, row) in pixels.chunks_mut(side).enumerate() {
            for (x, pixel) in row.iter_mut().enumerate() {
                let (mx, my) = ((x / SCALE).wrapping_sub(4), (y / SCALE).wrapping_sub(4));
                if mx < modules && my < modules && colors[my * modules + mx] == qrcode::Color::Dark
                {
                    *pixel = 0;
                }
            }
        }
        (pixels, side)
    }

    /// A camera that hands the frames it is given to its sink.
    #[derive(Clone, Default)]
    struct FakeCamera(Arc<Mutex<Option<(FrameSink, ErrorSink)>>>);

    impl FakeCamera {
        fn show(&self, pixels: &[u8], side: usize) {
            self.show_turned(pixels, side, side, Orientation::UPRIGHT);
        }

        /// A `width`×`height` frame, turned as a phone's sensor is.
        fn show_turned(&self, pixels: &[u8], width: usize, height: usize, turn: Orientation) {
            let (sink, _) = self.0.lock().unwrap().clone().expect("the camera runs");
            sink(
                GreyFrame::new(pixels, width, height, width)
                    .unwrap()
                    .oriented(turn),
            );
        }

        fn running(&self) -> bool {
            self.0.lock().unwrap().is_some()
        }

        /// Fails as a camera another app took does.
        fn fail(&self) {
            let (_, errors) = self.0.lock().unwrap().clone().expect("the camera runs");
            errors(CameraError::Failed("taken".into()));
        }
    }

    impl Camera for FakeCamera {
        fn start(&mut self, sink: FrameSink, errors: ErrorSink) -> Result<(), CameraError> {
            *self.0.lock().unwrap() = Some((sink, errors));
            Ok(())
        }

        fn stop(&mut self) {
            *self.0.lock().unwrap() = None;
        }
    }

    fn scanner(camera: &FakeCamera) -> Scanner {
        let session = CameraSession::new(camera.clone(), NoPermissionNeeded);
        Scanner::new(Lifecycle::new(
            Multicast::new(NoLock),
            session,
            Bookmark::Home,
        ))
    }

    /// Opens `scanner`: what it reports, as it comes.
    fn reported(scanner: &Scanner) -> Arc<Mutex<Vec<Report>>> {
        let reports = Arc::new(Mutex::new(Vec::new()));
        let log = reports.clone();
        scanner
            .open(move |r| log.lock().unwrap().push(r), |_| {})
            .unwrap();
        reports
    }

    #[test]
    fn a_camera_frame_with_the_hosts_qr_code_gives_its_ticket() {
        let camera = FakeCamera::default();
        let scanner = scanner(&camera);
        let seen = reported(&scanner);
        assert!(camera.running());

        let blank = vec![255; 64 * 64];
        camera.show(&blank, 64);
        let ticket = ticket();
        let (pixels, side) = picture(&ticket.to_string());
        camera.show(&pixels, side);
        // A code held still is reported once.
        camera.show(&pixels, side);
        assert_eq!(
            *seen.lock().unwrap(),
            vec![Report::Looking, Report::Seen(Scan::Found(ticket))]
        );

        scanner.close();
        assert!(!camera.running());
    }

    #[test]
    fn the_viewfinder_shows_each_frame_upright_while_the_code_still_joins() {
        let camera = FakeCamera::default();
        let scanner = scanner(&camera);
        let (seen, pictures) = (
            Arc::new(Mutex::new(Vec::new())),
            Arc::new(Mutex::new(Vec::new())),
        );
        let (log, shown) = (seen.clone(), pictures.clone());
        scanner
            .open(
                move |s| log.lock().unwrap().push(s),
                move |p: Picture| shown.lock().unwrap().push(p),
            )
            .unwrap();

        // A back camera's sideways frame with a dark sensor's top left
        // corner: upright, the picture is high and the corner top right.
        let (width, height) = (64, 32);
        let mut sideways = vec![255; width * height];
        sideways[0] = 0;
        camera.show_turned(&sideways, width, height, Orientation::android(90, 0, false));
        let ticket = ticket();
        let (code, side) = picture(&ticket.to_string());
        camera.show(&code, side);

        let pictures = pictures.lock().unwrap();
        let sizes: Vec<(u32, u32)> = pictures.iter().map(|p| (p.width(), p.height())).collect();
        let side = side.min(PREVIEW_SIDE) as u32;
        assert_eq!(sizes, [(32, 64), (side, side)]);
        assert_eq!(pictures[0].as_slice()[31].r, 0);
        assert_eq!(
            *seen.lock().unwrap(),
            [Report::Looking, Report::Seen(Scan::Found(ticket))]
        );
    }

    #[test]
    fn a_camera_that_runs_again_after_failing_says_it_looks_again() {
        let camera = FakeCamera::default();
        let scanner = scanner(&camera);
        let seen = reported(&scanner);
        let blank = vec![255; 64 * 64];
        camera.show(&blank, 64);
        camera.fail();
        // Started again (the app's return) by the lifecycle, which says
        // nothing when it succeeds: its first frame does.
        camera.show(&blank, 64);
        camera.show(&blank, 64);
        let failed = Report::Stopped(CameraError::Failed("taken".into()));
        assert_eq!(
            *seen.lock().unwrap(),
            [Report::Looking, failed, Report::Looking]
        );
    }

    #[test]
    fn only_the_newest_picture_waits_and_only_the_first_wakes_the_taker() {
        let newest = Newest::default();
        assert!(newest.put(1));
        assert!(!newest.put(2));
        assert_eq!(newest.take(), Some(2));
        assert_eq!(newest.take(), None);
        assert!(newest.put(3));
    }

    /// A permission the player grants in the system's dialog.
    #[derive(Clone, Default)]
    struct Dialog(Arc<std::sync::atomic::AtomicBool>);

    impl crate::platform::camera::CameraPermission for Dialog {
        fn granted(&self) -> bool {
            self.0.load(Ordering::SeqCst)
        }

        fn request(&mut self) -> Result<(), CameraError> {
            Ok(())
        }
    }

    /// The scan screen opened on `camera` behind the system's permission
    /// `dialog`, which the app was paused for: its life and what the
    /// screen heard.
    fn asked(camera: &FakeCamera, dialog: &Dialog) -> (Lifecycle, Arc<Mutex<Vec<Report>>>) {
        let lifecycle = Lifecycle::new(
            Multicast::new(NoLock),
            CameraSession::new(camera.clone(), dialog.clone()),
            Bookmark::Home,
        );
        let reports = Arc::new(Mutex::new(Vec::new()));
        let log = reports.clone();
        assert_eq!(
            Scanner::new(lifecycle.clone()).open(move |r| log.lock().unwrap().push(r), |_| {}),
            Err(CameraError::AskingPermission)
        );
        lifecycle.pause().unwrap();
        (lifecycle, reports)
    }

    #[test]
    fn a_camera_started_on_return_from_the_permission_dialog_says_it_looks() {
        let (camera, dialog) = (FakeCamera::default(), Dialog::default());
        let (lifecycle, reports) = asked(&camera, &dialog);
        dialog.0.store(true, Ordering::SeqCst);
        lifecycle.resume().unwrap();
        assert!(camera.running());
        camera.show(&vec![255; 32 * 32], 32);
        assert_eq!(*reports.lock().unwrap(), vec![Report::Looking]);
    }

    #[test]
    fn a_permission_refused_in_the_dialog_is_reported_on_return() {
        let camera = FakeCamera::default();
        let (lifecycle, reports) = asked(&camera, &Dialog::default());
        assert_eq!(lifecycle.resume(), Err(CameraError::Denied.into()));
        assert!(!camera.running());
        assert_eq!(
            *reports.lock().unwrap(),
            vec![Report::Stopped(CameraError::Denied)]
        );
    }

    #[test]
    fn a_camera_that_stops_by_itself_is_reported() {
        let camera = FakeCamera::default();
        let reports = reported(&scanner(&camera));
        // Another app took the camera.
        let (_, errors) = camera.0.lock().unwrap().clone().unwrap();
        errors(CameraError::Failed("taken".into()));
        assert_eq!(
            *reports.lock().unwrap(),
            vec![Report::Stopped(CameraError::Failed("taken".into()))]
        );
    }

    #[test]
    fn a_qr_code_that_is_no_ticket_is_said_so() {
        let camera = FakeCamera::default();
        let scanner = scanner(&camera);
        let seen = reported(&scanner);
        let (pixels, side) = picture("https://example.org/");
        camera.show(&pixels, side);
        let seen = seen.lock().unwrap();
        assert!(
            matches!(
                seen.as_slice(),
                [Report::Looking, Report::Seen(Scan::Other { text, .. })]
                    if text == "https://example.org/"
            ),
            "{seen:?}"
        );
    }

    #[test]
    fn a_desktop_has_no_camera_and_reads_a_picture_file_instead() {
        let desktop = crate::platform::Platform::desktop();
        let scanner = Scanner::new(desktop.lifecycle);
        assert_eq!(scanner.open(|_| {}, |_| {}), Err(CameraError::NoCamera));

        let dir = tempfile::tempdir().unwrap();
        let ticket = ticket();
        let (pixels, side) = picture(&ticket.to_string());
        let path = dir.path().join("code.png");
        image::GrayImage::from_raw(side as u32, side as u32, pixels)
            .unwrap()
            .save(&path)
            .unwrap();
        assert_eq!(read_picture(&path).unwrap(), Scan::Found(ticket));
    }

    #[test]
    fn a_missing_or_broken_picture_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = read_picture(&dir.path().join("nope.png")).unwrap_err();
        assert!(
            missing.to_string().contains("cannot read the picture"),
            "{missing}"
        );
        let broken = dir.path().join("broken.png");
        std::fs::write(&broken, b"\x89PNG not really").unwrap();
        assert!(read_picture(&broken).is_err());
    }
}
