//! The Android framework's Java APIs that have no NDK counterpart, called
//! over JNI: the Wi-Fi multicast lock and the camera permission.
//!
//! Only the calls themselves are here, each a few lines against the
//! documented Java signatures. They are compiled for Android, and on Linux
//! for this module's tests, which run them in a real JVM against stand-ins
//! of the Android classes with the same signatures
//! (`tests/android-stubs/`), so a misspelt method or signature fails here
//! rather than on a phone.

use jni::objects::{JObject, JValue};
use jni::refs::Global;
use jni::{Env, JavaVM, jni_sig, jni_str};

use super::PlatformError;
use super::camera::{CameraError, CameraPermission};
use super::multicast::MulticastLock;

/// The runtime permission the scanner needs (declared in the manifest).
const CAMERA: &str = "android.permission.CAMERA";

/// `PackageManager.PERMISSION_GRANTED`.
const PERMISSION_GRANTED: i32 = 0;

/// Our code for `Activity.requestPermissions` (the answer arrives as a
/// resume, so the code is never looked at).
const CAMERA_REQUEST: i32 = 1;

/// The tag Android shows for our lock in `dumpsys wifi`.
const LOCK_TAG: &str = "clovece mDNS";

/// The Java VM and the app's activity.
#[derive(Clone)]
pub struct Jvm {
    vm: JavaVM,
    activity: std::sync::Arc<Global<JObject<'static>>>,
}

impl Jvm {
    pub fn new(vm: JavaVM, activity: Global<JObject<'static>>) -> Jvm {
        Jvm {
            vm,
            activity: std::sync::Arc::new(activity),
        }
    }

    /// Runs `f` with this thread attached to the VM; a Java exception comes
    /// back as an error with its message.
    fn call<T>(
        &self,
        f: impl FnOnce(&mut Env, &JObject<'static>) -> jni::errors::Result<T>,
    ) -> Result<T, jni::errors::Error> {
        self.vm
            .attach_current_thread(|env| f(env, self.activity.as_obj()))
    }
}

fn system(e: jni::errors::Error) -> PlatformError {
    PlatformError::System(e.to_string())
}

/// `WifiManager.MulticastLock`, not reference-counted (the counting is
/// done in Rust by [`super::multicast::Multicast`]).
pub struct WifiMulticastLock {
    jvm: Jvm,
    lock: Global<JObject<'static>>,
}

impl WifiMulticastLock {
    /// Creates the app's lock (released): the application context's
    /// `WifiManager` (the activity's own would leak the activity).
    pub fn new(jvm: Jvm) -> Result<WifiMulticastLock, PlatformError> {
        let lock = jvm
            .call(|env, activity| {
                let context = env
                    .call_method(
                        activity,
                        jni_str!("getApplicationContext"),
                        jni_sig!("()Landroid/content/Context;"),
                        &[],
                    )?
                    .l()?;
                let name = env.new_string("wifi")?;
                let wifi = env
                    .call_method(
                        &context,
                        jni_str!("getSystemService"),
                        jni_sig!("(Ljava/lang/String;)Ljava/lang/Object;"),
                        &[JValue::Object(&name)],
                    )?
                    .l()?;
                if wifi.is_null() {
                    return Err(jni::errors::Error::NullPtr("WifiManager"));
                }
                let tag = env.new_string(LOCK_TAG)?;
                let lock = env
                    .call_method(
                        &wifi,
                        jni_str!("createMulticastLock"),
                        jni_sig!(
                            "(Ljava/lang/String;)Landroid/net/wifi/WifiManager$MulticastLock;"
                        ),
                        &[JValue::Object(&tag)],
                    )?
                    .l()?;
                env.call_method(
                    &lock,
                    jni_str!("setReferenceCounted"),
                    jni_sig!("(Z)V"),
                    &[JValue::Bool(false)],
                )?
                .v()?;
                env.new_global_ref(lock)
            })
            .map_err(|e| PlatformError::Multicast(e.to_string()))?;
        Ok(WifiMulticastLock { jvm, lock })
    }

    fn call_lock(&self, method: &'static str) -> Result<(), PlatformError> {
        let lock = self.lock.as_obj();
        self.jvm
            .call(|env, _| {
                let name = jni::strings::JNIString::from(method);
                env.call_method(lock, name, jni_sig!("()V"), &[])?.v()
            })
            .map_err(|e| PlatformError::Multicast(e.to_string()))
    }

    /// Whether Android says the lock is held.
    pub fn is_held(&self) -> Result<bool, PlatformError> {
        let lock = self.lock.as_obj();
        self.jvm
            .call(|env, _| {
                env.call_method(lock, jni_str!("isHeld"), jni_sig!("()Z"), &[])?
                    .z()
            })
            .map_err(system)
    }
}

impl MulticastLock for WifiMulticastLock {
    fn acquire(&mut self) -> Result<(), PlatformError> {
        self.call_lock("acquire")
    }

    fn release(&mut self) -> Result<(), PlatformError> {
        self.call_lock("release")
    }
}

/// The camera permission, asked for with `Activity.requestPermissions`.
pub struct ActivityCameraPermission {
    jvm: Jvm,
}

impl ActivityCameraPermission {
    pub fn new(jvm: Jvm) -> ActivityCameraPermission {
        ActivityCameraPermission { jvm }
    }
}

impl CameraPermission for ActivityCameraPermission {
    fn granted(&self) -> bool {
        self.jvm
            .call(|env, activity| {
                let camera = env.new_string(CAMERA)?;
                env.call_method(
                    activity,
                    jni_str!("checkSelfPermission"),
                    jni_sig!("(Ljava/lang/String;)I"),
                    &[JValue::Object(&camera)],
                )?
                .i()
            })
            // Not knowing counts as not granted: the request that follows
            // reports what went wrong.
            .is_ok_and(|answer| answer == PERMISSION_GRANTED)
    }

    fn request(&mut self) -> Result<(), CameraError> {
        self.jvm
            .call(|env, activity| {
                let camera = env.new_string(CAMERA)?;
                let permissions = env.new_object_array(1, jni_str!("java/lang/String"), &camera)?;
                env.call_method(
                    activity,
                    jni_str!("requestPermissions"),
                    jni_sig!("([Ljava/lang/String;I)V"),
                    &[JValue::Object(&permissions), JValue::Int(CAMERA_REQUEST)],
                )?
                .v()
            })
            .map_err(|e| CameraError::Failed(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    //! These tests start a JVM (the JDK's `javac` and `libjvm` must be
    //! installed, as on the project's machines) and compile the stand-ins
    //! of the Android classes into a temporary folder.

    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::sync::OnceLock;

    use jni::{InitArgsBuilder, JNIVersion};

    use super::*;
    use crate::platform::camera::{CameraSession, NoCamera};
    use crate::platform::multicast::Multicast;

    fn stubs() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/android-stubs")
    }

    /// The one JVM of this test process (JNI allows only one).
    fn vm() -> &'static JavaVM {
        static VM: OnceLock<JavaVM> = OnceLock::new();
        VM.get_or_init(|| {
            // A folder of this process's own, gone once the JVM has loaded
            // every class in it: one shared by every run could hold another
            // run's classes (a stand-in since removed, still found) or be
            // another user's.
            let classes = tempfile::Builder::new()
                .prefix("clovece-android-stubs")
                .tempdir()
                .expect("a temporary folder");
            let sources: Vec<PathBuf> = [
                "android/content/Context.java",
                "android/app/Activity.java",
                "android/net/wifi/WifiManager.java",
            ]
            .iter()
            .map(|f| stubs().join(f))
            .collect();
            let status = Command::new("javac")
                .arg("-d")
                .arg(classes.path())
                .args(&sources)
                .status()
                .expect("javac runs (install a JDK)");
            assert!(status.success(), "the Android stand-ins compile");
            let args = InitArgsBuilder::new()
                .version(JNIVersion::V1_8)
                .option(format!("-Djava.class.path={}", classes.path().display()))
                .build()
                .unwrap();
            let vm = JavaVM::new(args).expect("a JVM starts (install a JDK)");
            let names = class_names(classes.path(), classes.path());
            vm.attach_current_thread(|env| {
                names.iter().try_for_each(|name| {
                    env.find_class(jni::strings::JNIString::from(name.as_str()))
                        .map(drop)
                })
            })
            .expect("the stand-ins load");
            vm
        })
    }

    /// The JNI names of the classes compiled into `dir` under `root`
    /// (`android/net/wifi/WifiManager$MulticastLock`).
    fn class_names(root: &Path, dir: &Path) -> Vec<String> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                names.extend(class_names(root, &path));
            } else if let Some(class) = path.strip_prefix(root).unwrap().to_str()
                && let Some(name) = class.strip_suffix(".class")
            {
                names.push(name.to_owned());
            }
        }
        names
    }

    /// A fresh stand-in activity.
    fn jvm() -> Jvm {
        let vm = vm().clone();
        let activity = vm
            .attach_current_thread(|env| {
                let activity =
                    env.new_object(jni_str!("android/app/Activity"), jni_sig!("()V"), &[])?;
                env.new_global_ref(activity)
            })
            .unwrap();
        Jvm::new(vm, activity)
    }

    fn field_int(jvm: &Jvm, name: &'static str) -> i32 {
        jvm.call(|env, activity| {
            env.get_field(activity, jni::strings::JNIString::from(name), jni_sig!("I"))?
                .i()
        })
        .unwrap()
    }

    #[test]
    fn jni_multicast_lock_follows_the_holds() {
        let jvm = jvm();
        let lock = WifiMulticastLock::new(jvm.clone()).unwrap();
        let lock_ref = WifiMulticastLock {
            jvm: jvm.clone(),
            lock: jvm
                .call(|env, _| env.new_global_ref(lock.lock.as_obj()))
                .unwrap(),
        };
        let multicast = Multicast::new(lock);
        assert!(!lock_ref.is_held().unwrap());
        let nearby = multicast.hold().unwrap();
        let game = multicast.hold().unwrap();
        assert!(lock_ref.is_held().unwrap());
        drop(nearby);
        assert!(lock_ref.is_held().unwrap());
        multicast.set_foreground(false).unwrap();
        assert!(!lock_ref.is_held().unwrap());
        multicast.set_foreground(true).unwrap();
        assert!(lock_ref.is_held().unwrap());
        drop(game);
        assert!(!lock_ref.is_held().unwrap());
        // The stand-in counts Java calls: one acquire per hold period.
        assert_eq!(field_int(&jvm, "acquires"), 2);
    }

    #[test]
    fn jni_multicast_lock_reports_a_missing_wifi_service() {
        let jvm = jvm();
        jvm.call(|env, activity| {
            env.set_field(
                activity,
                jni_str!("noWifi"),
                jni_sig!("Z"),
                JValue::Bool(true),
            )
        })
        .unwrap();
        let err = WifiMulticastLock::new(jvm).err().unwrap();
        assert!(matches!(err, PlatformError::Multicast(_)), "{err}");
    }

    #[test]
    fn jni_camera_permission_is_asked_once_per_opening() {
        let jvm = jvm();
        let mut session = CameraSession::new(NoCamera, ActivityCameraPermission::new(jvm.clone()));
        let sink: crate::platform::camera::FrameSink = std::sync::Arc::new(|_| {});
        assert_eq!(
            session.open(sink.clone(), std::sync::Arc::new(|_| {})),
            Err(CameraError::AskingPermission)
        );
        assert_eq!(field_int(&jvm, "requests"), 1);
        // The player refused: the resume after the dialog reports it.
        assert_eq!(session.set_foreground(false), Ok(()));
        assert_eq!(session.set_foreground(true), Err(CameraError::Denied));
        assert_eq!(field_int(&jvm, "requests"), 1);
        // Granted in the system settings: the camera starts (here: none).
        jvm.call(|env, activity| {
            env.set_field(
                activity,
                jni_str!("cameraGranted"),
                jni_sig!("Z"),
                JValue::Bool(true),
            )
        })
        .unwrap();
        assert_eq!(
            session.open(sink, std::sync::Arc::new(|_| {})),
            Err(CameraError::NoCamera)
        );
        assert_eq!(field_int(&jvm, "requests"), 1);
    }
}
