//! Android: the platform services over JNI and the NDK, and the activity's
//! life events.
//!
//! The app runs in a `NativeActivity` (no Java code of our own): Slint's
//! Android backend drives the activity through the `android-activity` crate
//! and hands every event to the listener of [`listener`]. Configuration
//! changes (rotation, keyboard, screen size, bold text, every one) are
//! declared as handled in the manifest, so the activity is not recreated
//! for them; it is recreated
//! only after Android killed the backgrounded process, and then the
//! [`Bookmark`] it kept reopens the game from its store.
//!
//! The entry point [`android_main`] joins these pieces to Slint's Android
//! backend and the app. That backend renders with Skia, whose build needs
//! the NDK, so it comes with the crate feature `android`, which the Gradle
//! build turns on; without it the library still type-checks for Android
//! (`.ci/check-mobile`), minus the entry point.

mod camera;

use std::cell::{Cell, RefCell};

use android_activity::{AndroidApp, MainEvent, PollEvent, WindowManagerFlags};
use jni::JavaVM;
use jni::objects::JObject;

use super::awake::ScreenTimeout;
use super::discovery::SwarmMdns;
use super::jvm::{ActivityCameraPermission, Jvm, WifiMulticastLock};
use super::lifecycle::{Bookmark, Lifecycle};
use super::multicast::{Multicast, NoLock};
use super::{Platform, PlatformError};
use crate::platform::camera::CameraSession;

pub use camera::NdkCamera;

/// The Java VM and this app's activity, as `android-activity` hands them
/// over. Not `ndk-context`'s context: since android-activity 0.6.1 that is
/// the `Application`, which has no `requestPermissions`, so the camera
/// permission could never be asked for.
fn jvm(app: &AndroidApp) -> Result<Jvm, PlatformError> {
    // SAFETY: `app` holds the process's VM and a global reference to the
    // activity that stay valid while it lives; the reference is only
    // borrowed here to make a global reference of our own.
    unsafe {
        let vm = JavaVM::from_raw(app.vm_as_ptr().cast());
        let activity = vm
            .attach_current_thread(|env| {
                let activity = JObject::from_raw(env, app.activity_as_ptr().cast());
                env.new_global_ref(activity)
            })
            .map_err(|e: jni::errors::Error| PlatformError::System(e.to_string()))?;
        Ok(Jvm::new(vm, activity))
    }
}

/// The platform services of this phone: the app's private data folder,
/// libp2p's mDNS under the Wi-Fi multicast lock, the NDK camera with the
/// runtime permission.
pub fn platform(app: &AndroidApp) -> Result<Platform, PlatformError> {
    let jvm = jvm(app)?;
    // A phone without Wi-Fi (the manifest does not require it) has no
    // WifiManager: the app still runs, joining by ticket link.
    let multicast = match WifiMulticastLock::new(jvm.clone()) {
        Ok(lock) => Multicast::new(lock),
        Err(e) => {
            eprintln!("clovece: {e}; mDNS may miss answers");
            Multicast::new(NoLock)
        }
    };
    let camera = CameraSession::new(NdkCamera::default(), ActivityCameraPermission::new(jvm));
    Ok(Platform {
        data_dir: app.internal_data_path(),
        discovery: std::sync::Arc::new(SwarmMdns::new(multicast.clone())),
        lifecycle: Lifecycle::new(multicast, camera, Bookmark::Home)
            .with_screen(KeepScreenOn(app.clone())),
    })
}

/// The activity window's `FLAG_KEEP_SCREEN_ON`: the window keeps it across
/// pauses, and a recreated activity gets it again when the app shows its
/// room or game.
struct KeepScreenOn(AndroidApp);

impl ScreenTimeout for KeepScreenOn {
    fn keep_on(&mut self, on: bool) -> Result<(), PlatformError> {
        let flag = WindowManagerFlags::KEEP_SCREEN_ON;
        let none = WindowManagerFlags::empty();
        // `ANativeActivity_setWindowFlags`: posted to the activity's own
        // thread, so any thread may call it; it reports nothing.
        let (add, remove) = if on { (flag, none) } else { (none, flag) };
        self.0.set_window_flags(add, remove);
        Ok(())
    }
}

/// The listener for Slint's `init_with_event_listener`: pause and resume
/// go to `lifecycle`; the bookmark is kept on save, and what Android kept
/// is restored on the first resume of this process (later resumes would
/// only hand back what this process saved itself).
pub fn listener(lifecycle: Lifecycle) -> impl Fn(&PollEvent<'_>) + 'static {
    let first_resume = Cell::new(true);
    // `StateSaver::store` wants bytes that outlive the event, so the saved
    // bytes are leaked; the last ones are reused while the bookmark does
    // not change, so only a changed bookmark costs a few bytes.
    let saved: RefCell<Option<&'static [u8]>> = RefCell::new(None);
    move |event| match event {
        PollEvent::Main(MainEvent::Pause) => report("pause", lifecycle.pause()),
        PollEvent::Main(MainEvent::Resume { loader, .. }) => {
            if first_resume.replace(false)
                && let Some(bytes) = loader.load()
            {
                lifecycle.restore(&bytes);
            }
            report("resume", lifecycle.resume());
        }
        PollEvent::Main(MainEvent::SaveState { saver, .. }) => {
            let bytes = lifecycle.save();
            let mut saved = saved.borrow_mut();
            let kept = match *saved {
                Some(kept) if *kept == *bytes => kept,
                _ => &*Box::leak(bytes.into_boxed_slice()),
            };
            *saved = Some(kept);
            saver.store(kept);
        }
        _ => {}
    }
}

/// The activity's entry point: the platform services, then Slint's
/// backend with our lifecycle listener, then the app until the activity
/// finishes. Failures go to logcat; the activity then simply ends.
#[cfg(feature = "android")]
#[unsafe(no_mangle)]
fn android_main(app: slint::android::AndroidApp) {
    let result = (|| -> Result<(), String> {
        let platform = platform(&app).map_err(|e| e.to_string())?;
        let listener = listener(platform.lifecycle.clone());
        slint::android::init_with_event_listener(app, listener).map_err(|e| e.to_string())?;
        crate::app::run_on(platform).map_err(|e| e.to_string())
    })();
    if let Err(e) = result {
        eprintln!("clovece: {e}");
    }
}

/// Lifecycle failures have nobody to answer to: they are logged (the
/// android-activity glue forwards stderr to logcat under the tag
/// `RustStdoutStderr`), and the next event tries again.
fn report(what: &str, result: Result<(), PlatformError>) {
    if let Err(e) = result {
        eprintln!("clovece: {what}: {e}");
    }
}
