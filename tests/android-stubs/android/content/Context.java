package android.content;

/** Stand-in of android.content.Context: only what clovece calls. */
public abstract class Context {
    public abstract Context getApplicationContext();

    public abstract Object getSystemService(String name);

    public abstract int checkSelfPermission(String permission);
}
