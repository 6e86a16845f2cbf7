package io.quiver.infer.internal;

/**
 * Called once by {@link QuiverCapi#QvjOnReady} when an array becomes readable: on the registering thread
 * if it already is, otherwise on the runtime's callback thread ("quiver-callbacks"). Must not block and
 * must not throw (the runtime runs callbacks one at a time).
 */
public interface ReadyListener {
  /**
   * @param status QV_OK (0), or the status code the work producing the array failed with
   * @param message the failure's message ("" on success)
   */
  void onReady(int status, String message);
}
