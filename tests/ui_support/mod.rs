//! What the UI test binaries share: the headless backend, an app with a
//! fixed die and its own settings folder, and element look-ups.

#![allow(dead_code)] // each test binary uses a part

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use clovece::app::dice::Dice;
use clovece::app::invite::Inbox;
use clovece::app::nearby::Browsing;
use clovece::app::settings::{Language, Settings, SettingsFile};
use clovece::app::ui::AppWindow;
use clovece::app::{App, Services};
use clovece::platform::PlatformError;
use clovece::platform::discovery::{Announcement, Discovering, Discovery, Nearby, NearbySink};
use i_slint_backend_testing::{ElementHandle, TestingBackend, TestingBackendOptions};

/// Puts this test thread on Slint's testing backend with mocked time and the
/// software renderer (so snapshots work). A second call on the same thread
/// keeps the backend it has.
pub fn init() {
    init_with(false);
}

/// [`init`] on the threaded testing backend, which runs the event loop,
/// for tests whose network thread reaches the window through it.
pub fn init_threaded() {
    init_with(true);
}

/// Runs `test` on the one thread of this test binary that runs Slint's
/// threaded testing backend (set up there), waiting for it and passing on
/// its panic. That backend belongs to the thread that set it up, so a
/// binary whose tests open windows on it runs them there, one at a time.
pub fn on_ui_thread(test: impl FnOnce() + Send + 'static) {
    type Job = Box<dyn FnOnce() + Send>;
    static JOBS: std::sync::OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<Job>>> =
        std::sync::OnceLock::new();
    let jobs = JOBS.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        std::thread::spawn(move || {
            init_threaded();
            for job in rx {
                job();
            }
        });
        std::sync::Mutex::new(tx)
    });
    let (done, outcome) = std::sync::mpsc::channel();
    let job: Job = Box::new(move || {
        let _ = done.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(test)));
    });
    jobs.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .send(job)
        .expect("the UI thread runs");
    if let Err(panic) = outcome.recv().expect("the UI thread answers") {
        // Panicked again here with its message, so that the message is in
        // this test's captured output: the UI thread's own panic message
        // went to the output of whichever test started that thread.
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied());
        match message {
            Some(message) => panic!("on the UI thread: {message}"),
            None => std::panic::resume_unwind(panic),
        }
    }
}

fn init_with(threading: bool) {
    let backend = TestingBackend::new(TestingBackendOptions {
        mock_time: true,
        threading,
        renderer_name: Some("software".into()),
    });
    let _ = slint::platform::set_platform(Box::new(backend));
}

/// An empty settings folder of its own for the test `name`, removed when
/// the test drops it (the tests once left hundreds behind in the temp dir).
pub fn settings_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("clovece-ui-{name}-"))
        .tempdir()
        .unwrap()
}

/// The app with its settings in `dir` and a die seeded with `seed`, in
/// English whatever the machine's locale (the tests read English labels).
pub fn app(dir: &Path, seed: u8) -> App {
    app_on(dir, seed, Services::desktop())
}

/// The app as [`app`], with the nearby rooms list on loopback only (no
/// mDNS on the machine's network), asking the phones at `ask`.
pub fn app_on_loopback(dir: &Path, seed: u8, ask: Vec<(libp2p::PeerId, libp2p::Multiaddr)>) -> App {
    let services = Services {
        browsing: Browsing {
            listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
            ask,
        },
        ..Services::desktop()
    };
    app_on(dir, seed, services)
}

/// The desktop's services listening on loopback only, for a test that
/// makes its app with settings of its own rather than [`app_on`].
pub fn loopback_services() -> Services {
    let mut services = Services::desktop();
    services.browsing.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
    services
}

/// The app as [`app`] with `services` (a test keeps a handle on them).
/// Every app of the tests listens on loopback only (Home listens for
/// invitations from the start, online games where the nearby list does).
pub fn app_on(dir: &Path, seed: u8, mut services: Services) -> App {
    services.browsing.listen = vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()];
    let file = SettingsFile::in_folder(dir);
    let settings = Settings {
        language: Language::English,
        ..Settings::default()
    };
    file.save(&settings).unwrap();
    App::with_services(file, Dice::from_seed([seed; 32]), services).unwrap()
}

/// The one element labelled `label`.
pub fn find(window: &AppWindow, label: &str) -> ElementHandle {
    ElementHandle::find_by_accessible_label(window, label)
        .next()
        .unwrap_or_else(|| panic!("nothing labelled {label:?}"))
}

/// Records what `AppAdapter.join-room` is asked to join (the room screen's
/// handler, which these tests stand in for).
pub fn joins(window: &AppWindow) -> std::rc::Rc<std::cell::RefCell<Vec<String>>> {
    use slint::ComponentHandle;
    let joined = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let log = joined.clone();
    window
        .global::<clovece::app::ui::AppAdapter>()
        .on_join_room(move |target| log.borrow_mut().push(target.to_string()));
    joined
}

/// The text field labelled `label` (a section title may carry the same
/// words).
pub fn text_field(window: &AppWindow, label: &'static str) -> ElementHandle {
    i_slint_backend_testing::ElementQuery::from_root(window)
        .match_descendants()
        .match_accessible_role(i_slint_backend_testing::AccessibleRole::TextInput)
        .match_predicate(move |e| e.accessible_label().is_some_and(|l| l == label))
        .find_first()
        .unwrap_or_else(|| panic!("no text field labelled {label:?}"))
}

/// The enabled elements whose label contains `part`.
pub fn enabled(window: &AppWindow, part: &'static str) -> Vec<ElementHandle> {
    i_slint_backend_testing::ElementQuery::from_root(window)
        .match_descendants()
        .match_predicate(move |e| {
            e.accessible_enabled() == Some(true)
                && e.accessible_label().is_some_and(|l| l.contains(part))
        })
        .find_all()
}

pub fn label_of(element: &ElementHandle) -> String {
    element.accessible_label().unwrap_or_default().to_string()
}

/// The note below the die, if it says something.
pub fn note(window: &AppWindow) -> Option<String> {
    let notes = [
        "Second try of three",
        "Third try of three",
        "A six — roll again",
    ];
    i_slint_backend_testing::ElementQuery::from_root(window)
        .match_descendants()
        .match_predicate(move |e| {
            e.accessible_label().is_some_and(|l| {
                notes.contains(&l.as_str())
                    || l.contains(" captured by ")
                    || l.contains(": no piece can move")
            })
        })
        .find_first()
        .map(|e| label_of(&e))
}

/// Runs the event loop for `wait`, so that what other threads sent with
/// `upgrade_in_event_loop` reaches the window (a test on the threaded
/// testing backend only).
///
/// Each pump's quit carries its number and quits only that pump. Slint
/// also quits the loop when the last window is hidden; a pump ended that
/// way left its own quit to end the next pump early, and that one's the
/// next, so that waits counted in pumps ran at twice the speed and a slow
/// machine's game outlasted "a minute" (a CI failure).
pub fn pump(wait: Duration) {
    static PUMPS: AtomicU64 = AtomicU64::new(0);
    let this = PUMPS.fetch_add(1, Ordering::SeqCst) + 1;
    std::thread::spawn(move || {
        std::thread::sleep(wait);
        let _ = slint::invoke_from_event_loop(move || {
            if PUMPS.load(Ordering::SeqCst) == this {
                let _ = slint::quit_event_loop();
            }
        });
    });
    slint::run_event_loop().unwrap();
}

/// Pumps the event loop until `done`, for at most a minute by the clock.
pub fn pump_until(what: &str, done: impl FnMut() -> bool) {
    pump_within(Duration::from_secs(60), what, done);
}

/// Pumps the event loop until `done`, for at most `limit` by the clock;
/// the panic says how long it waited and how many pumps that took.
pub fn pump_within(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    let mut pumps = 0;
    while !done() {
        if start.elapsed() > limit {
            panic!(
                "not within {limit:?}: {what} ({pumps} pumps in {:?})",
                start.elapsed()
            );
        }
        pump(Duration::from_millis(20));
        pumps += 1;
    }
}

/// Whether something is labelled exactly `label`.
pub fn shows(window: &AppWindow, label: &str) -> bool {
    ElementHandle::find_by_accessible_label(window, label)
        .next()
        .is_some()
}

/// A phone's peer id and address from its `…/p2p/<id>` address, as mDNS
/// would find it.
pub fn phone(address: &str) -> (libp2p::PeerId, libp2p::Multiaddr) {
    let mut addr: libp2p::Multiaddr = address.parse().unwrap();
    let Some(libp2p::multiaddr::Protocol::P2p(peer)) = addr.pop() else {
        panic!("no peer id in {address}");
    };
    (peer, addr)
}

/// A discovery outside the swarm, as Bonjour is on iOS: it keeps what it
/// last announced and its sink, for the test to report finds, and says
/// whether it runs.
#[derive(Default)]
pub struct FakeBonjour {
    announced: std::sync::Mutex<Option<Announcement>>,
    sink: std::sync::Mutex<Option<NearbySink>>,
    running: Arc<AtomicBool>,
}

/// Clears its flag when dropped, as a stopped discovery.
struct Running(Arc<AtomicBool>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

impl Discovery for FakeBonjour {
    fn swarm_mdns(&self) -> bool {
        false
    }

    fn start(&self, me: &Announcement, nearby: NearbySink) -> Result<Discovering, PlatformError> {
        *self.announced.lock().unwrap() = Some(me.clone());
        *self.sink.lock().unwrap() = Some(nearby);
        self.running.store(true, Ordering::SeqCst);
        Ok(Discovering::new(Running(self.running.clone())))
    }
}

/// Home's inbox of `keypair`'s phone listening on `listen`, found
/// through `discovery`, once its node listens.
pub fn inbox(
    keypair: libp2p::identity::Keypair,
    listen: Vec<libp2p::Multiaddr>,
    discovery: Arc<dyn Discovery>,
) -> Inbox {
    let (tx, started) = std::sync::mpsc::channel();
    let send = move |listens| tx.send(listens).unwrap();
    let inbox = Inbox::open(keypair, listen, discovery, |_| {}, send).unwrap();
    started.recv().unwrap().expect("the inbox listens");
    inbox
}

impl FakeBonjour {
    /// What the last discovery started announced.
    pub fn announced(&self) -> Option<Announcement> {
        self.announced.lock().unwrap().clone()
    }

    /// Reports `nearby` as the running discovery would.
    pub fn report(&self, nearby: Nearby) {
        let sink = self.sink.lock().unwrap().clone();
        sink.expect("a discovery was started")(nearby);
    }

    /// Whether a discovery runs (one that was started is not dropped).
    pub fn running(&self) -> bool {
        self.running.load(Ordering::SeqCst)
    }
}

/// Presses Android's Back key.
pub fn back(window: &AppWindow) {
    press(window, slint::platform::Key::Back);
}

/// Presses and releases a key.
pub fn press(window: &AppWindow, key: slint::platform::Key) {
    use slint::platform::WindowEvent;
    let text = slint::SharedString::from(key);
    let window = slint::ComponentHandle::window(window);
    window.dispatch_event(WindowEvent::KeyPressed { text: text.clone() });
    window.dispatch_event(WindowEvent::KeyReleased { text });
    i_slint_backend_testing::mock_elapsed_time(Duration::from_millis(10));
}
