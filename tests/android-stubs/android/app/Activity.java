package android.app;

import android.content.Context;
import android.net.wifi.WifiManager;

/** Stand-in of android.app.Activity that records what the app asked for. */
public class Activity extends Context {
    public WifiManager wifi = new WifiManager(this);
    /** Makes getSystemService("wifi") answer null. */
    public boolean noWifi;
    public boolean cameraGranted;
    public int requests;
    public int acquires;

    @Override
    public Context getApplicationContext() {
        return this;
    }

    @Override
    public Object getSystemService(String name) {
        return "wifi".equals(name) && !noWifi ? wifi : null;
    }

    @Override
    public int checkSelfPermission(String permission) {
        // PackageManager.PERMISSION_GRANTED is 0, PERMISSION_DENIED -1.
        return "android.permission.CAMERA".equals(permission) && cameraGranted ? 0 : -1;
    }

    public final void requestPermissions(String[] permissions, int requestCode) {
        if (permissions.length != 1 || !"android.permission.CAMERA".equals(permissions[0])) {
            throw new IllegalArgumentException("unexpected permissions");
        }
        requests++;
    }
}
