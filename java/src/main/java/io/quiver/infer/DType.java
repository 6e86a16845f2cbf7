package io.quiver.infer;

/** Element types, with the runtime's codes (MXNet's type flags). */
public enum DType {
  FLOAT32(0, 4), FLOAT64(1, 8), FLOAT16(2, 2), UINT8(3, 1), INT32(4, 4), INT8(5, 1), INT64(6, 8);

  private final int code;
  private final int byteSize;

  DType(int code, int byteSize) {
    this.code = code;
    this.byteSize = byteSize;
  }

  /** The runtime's code ({@code QvDType}). */
  public int code() {
    return code;
  }

  /** Bytes per element. */
  public int byteSize() {
    return byteSize;
  }

  /** The type of a runtime code. */
  public static DType fromCode(int code) {
    for (DType type : values()) {
      if (type.code == code) {
        return type;
      }
    }
    throw new QuiverException(QuiverException.UNSUPPORTED, "unknown element type code " + code);
  }
}
