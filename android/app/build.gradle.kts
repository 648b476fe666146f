// The app module: no Java or Kotlin code of its own. The APK is the Rust
// library libclovece.so (cargo-ndk builds it into build/rustJniLibs before
// the native libraries are merged) started by Android's NativeActivity.

plugins {
    id("com.android.application")
}

/** The ABIs shipped: phones (arm64-v8a) and the x86_64 emulator. */
val abis = listOf("arm64-v8a", "x86_64")

/** The repository root, where Cargo.toml is. */
val crateDir = rootProject.projectDir.parentFile

val rustJniLibs = layout.buildDirectory.dir("rustJniLibs")

android {
    namespace = "app.clovece"
    compileSdk = 36
    ndkVersion = "28.2.13676358"

    defaultConfig {
        applicationId = "app.clovece"
        minSdk = 26
        targetSdk = 36
        versionCode = 2
        versionName = "0.1.1"
        ndk {
            abiFilters += abis
        }
    }

    buildTypes {
        release {
            // Signed with the key configured in ~/.gradle/gradle.properties
            // (see README.md); without one the release APK is unsigned.
            isMinifyEnabled = false
            val store = providers.gradleProperty("cloveceStoreFile").orNull
            if (store != null) {
                signingConfig = signingConfigs.create("release") {
                    storeFile = file(store)
                    storePassword = providers.gradleProperty("cloveceStorePassword").get()
                    keyAlias = providers.gradleProperty("cloveceKeyAlias").get()
                    keyPassword = providers.gradleProperty("cloveceKeyPassword").get()
                }
            }
        }
    }

    sourceSets["main"].jniLibs.srcDir(rustJniLibs)

    packaging {
        jniLibs {
            // NativeActivity loads the library from the APK, uncompressed
            // and page-aligned (the default since minSdk 23).
            useLegacyPackaging = false
        }
    }
}

/**
 * Builds libclovece.so for every ABI with cargo-ndk, always optimised: the
 * debug profile is too slow for the UI. 64-bit libraries are linked for
 * 16 KB pages, as Google Play requires (the default of NDK r28, which
 * cargo-ndk 4 also forces for older NDKs).
 */
val cargoNdk by tasks.registering(Exec::class) {
    description = "Builds the Rust library for Android with cargo-ndk"
    workingDir = crateDir
    inputs.files(fileTree(crateDir) {
        include("Cargo.toml", "Cargo.lock", "src/**", "ui/**")
    })
    outputs.dir(rustJniLibs)
    // Android Studio started from the Dock or a desktop menu does not have
    // ~/.cargo/bin on its PATH: take rustup's cargo where it installs it.
    val cargoHome = System.getenv("CARGO_HOME") ?: "${System.getProperty("user.home")}/.cargo"
    val cargo = File(cargoHome, "bin/cargo").takeIf { it.canExecute() }?.path ?: "cargo"
    // Linked against the oldest API level the app runs on.
    val args = mutableListOf(cargo, "ndk", "--platform", android.defaultConfig.minSdk!!.toString())
    abis.forEach { args += listOf("-t", it) }
    args += listOf("-o", rustJniLibs.get().asFile.path, "build", "--lib", "--release", "--features", "android")
    commandLine(args)
    // cargo-ndk builds with the NDK of `ndkVersion` above, the one Gradle
    // uses, whatever ANDROID_NDK_HOME says (or does not, under Android
    // Studio). Slint's Android backend compiles a Java helper in its build
    // script (the android-build crate): it gets compileSdk's android.jar
    // (otherwise it looks for the platform of cargo-ndk's ANDROID_PLATFORM,
    // minSdk, which the setup does not install) and the JDK Gradle runs on
    // (Studio's own, when nothing else is installed).
    doFirst {
        environment("ANDROID_NDK_HOME", android.ndkDirectory.absolutePath)
        environment("ANDROID_HOME", android.sdkDirectory.absolutePath)
        environment(
            "ANDROID_JAR",
            File(android.sdkDirectory, "platforms/android-${android.compileSdk}/android.jar").path,
        )
        environment("JAVA_HOME", System.getProperty("java.home"))
    }
}

tasks.named("preBuild") {
    dependsOn(cargoNdk)
}
