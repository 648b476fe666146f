#!/usr/bin/env bash
# Builds the Rust binary named $1 for every architecture Xcode asks for and
# places it, combined with lipo, as the app's executable. Run by Xcode (see
# project.yml), which sets CONFIGURATION, ARCHS, LLVM_TARGET_TRIPLE_SUFFIX,
# DERIVED_FILE_DIR, TARGET_BUILD_DIR and EXECUTABLE_PATH. Extra arguments go
# to cargo.
set -euo pipefail

bin="$1"
shift

# Xcode runs scripts with a minimal PATH; cargo lives in ~/.cargo/bin.
# /usr/bin first, so that Apple's linker tools are the ones found
# (https://github.com/rust-lang/rust/issues/80817).
export PATH="/usr/bin:/bin:/usr/sbin:/sbin:$PATH:$HOME/.cargo/bin"

manifest="$SRCROOT/../Cargo.toml"

if [[ "$CONFIGURATION" == "Debug" ]]; then
    profile=debug
    release=()
else
    profile=release
    release=(--release)
    # Debug info, so that the archive gets a dSYM for crash reports; the
    # release profile strips it (Cargo.toml), so stripping is off here.
    export CARGO_PROFILE_RELEASE_DEBUG="${CARGO_PROFILE_RELEASE_DEBUG:-1}"
    export CARGO_PROFILE_RELEASE_STRIP="${CARGO_PROFILE_RELEASE_STRIP:-none}"
fi

# Cargo's own target folder inside Xcode's derived data: a clean build in
# Xcode is a clean build in cargo.
export CARGO_TARGET_DIR="$DERIVED_FILE_DIR/cargo"

simulator=0
if [[ "${LLVM_TARGET_TRIPLE_SUFFIX-}" == "-simulator" ]]; then
    simulator=1
fi

built=()
for arch in $ARCHS; do
    case "$arch" in
        arm64)
            if [[ $simulator == 1 ]]; then
                target=aarch64-apple-ios-sim
            else
                target=aarch64-apple-ios
            fi
            ;;
        x86_64)
            target=x86_64-apple-ios
            export CFLAGS_x86_64_apple_ios="-target x86_64-apple-ios"
            ;;
        *)
            echo "error: no Rust target for the architecture $arch" >&2
            exit 1
            ;;
    esac
    # `${a[@]+"${a[@]}"}`: macOS's bash 3.2, the one Xcode's PATH finds,
    # calls an empty array unbound under `set -u`.
    cargo build --manifest-path "$manifest" --target "$target" --bin "$bin" \
        ${release[@]+"${release[@]}"} ${1+"$@"}
    built+=("$CARGO_TARGET_DIR/$target/$profile/$bin")
done

lipo -create -output "$TARGET_BUILD_DIR/$EXECUTABLE_PATH" "${built[@]}"

# Xcode makes dSYMs only for what it compiles itself.
if [[ -n "${DWARF_DSYM_FOLDER_PATH:-}" && -n "${DWARF_DSYM_FILE_NAME:-}" ]]; then
    mkdir -p "$DWARF_DSYM_FOLDER_PATH"
    dsymutil "$TARGET_BUILD_DIR/$EXECUTABLE_PATH" -o "$DWARF_DSYM_FOLDER_PATH/$DWARF_DSYM_FILE_NAME"
fi
# Nor does it strip what it did not link: once the dSYM has the debug
# information, a release build drops it and the local symbols, as Xcode's
# "Strip Linked Product" would.
if [[ "$profile" == release ]]; then
    strip -S -x "$TARGET_BUILD_DIR/$EXECUTABLE_PATH"
fi

# The executable changed after Xcode's signing step ran on the bundle
# (device builds only; the simulator needs no signature).
# The entitlements go along only when Xcode wrote some (the file is empty
# on Xcode Cloud, where passing it fails the signing).
if [[ $simulator == 0 && "${CODE_SIGNING_ALLOWED:-YES}" != "NO" && -n "${EXPANDED_CODE_SIGN_IDENTITY:-}" ]]; then
    entitlements=()
    xcent="$TARGET_TEMP_DIR/$PRODUCT_NAME.app.xcent"
    if [[ -s "$xcent" ]]; then
        entitlements=(--entitlements "$xcent")
    fi
    codesign --force --sign "$EXPANDED_CODE_SIGN_IDENTITY" \
        ${entitlements[@]+"${entitlements[@]}"} "$TARGET_BUILD_DIR/$EXECUTABLE_PATH"
fi
