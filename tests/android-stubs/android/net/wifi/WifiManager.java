package android.net.wifi;

import android.app.Activity;

/** Stand-in of android.net.wifi.WifiManager with its MulticastLock. */
public class WifiManager {
    private final Activity owner;

    public WifiManager(Activity owner) {
        this.owner = owner;
    }

    public MulticastLock createMulticastLock(String tag) {
        if (tag == null) {
            throw new NullPointerException("tag");
        }
        return new MulticastLock();
    }

    /** Behaves like Android's: counted by default, throws when under-locked. */
    public class MulticastLock {
        private boolean refCounted = true;
        private int refCount;
        private boolean held;

        public void setReferenceCounted(boolean refCounted) {
            this.refCounted = refCounted;
        }

        public void acquire() {
            if (refCounted ? (++refCount == 1) : !held) {
                held = true;
                owner.acquires++;
            }
        }

        public void release() {
            if (refCounted ? (--refCount == 0) : held) {
                held = false;
            }
            if (refCount < 0) {
                throw new RuntimeException("MulticastLock under-locked");
            }
        }

        public boolean isHeld() {
            return held;
        }
    }
}
