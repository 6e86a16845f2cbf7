package io.quiver.infer;

import io.quiver.infer.internal.NativeHandle;
import io.quiver.infer.internal.QuiverCapi;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs an MXNet model ({@code prefix-symbol.json} + {@code prefix-%04d.params}) with Quiver.
 *
 * <p>The model is compiled and its parameters loaded once; one Predictor is safe to share across any
 * number of threads (each prediction in flight gets its own workspace, parameters are shared), and any
 * batch size runs (one plan is compiled per new input shape, once).
 *
 * <p>{@code float[]} inputs are one row-major array per model input, in {@link #inputNames()} order;
 * their shapes come from the input's {@link DataDesc} with the batch size (its "N" axis) taken from the
 * array's length. {@link NDArray} inputs and outputs skip the copies, and are how inputs of other element
 * types than float32 are passed: each input takes exactly the type {@link #inputDTypes()} says (its
 * DataDesc's dtype, else what the symbol declares, else float32). {@link #predict(Map)} takes and returns
 * arrays by name.
 *
 * <p>{@link #predictAsync(float[]...)} returns at once; its future is completed once the runtime's
 * OnReady callbacks say the outputs are ready, on a "quiver-completions" thread: stages chained with
 * {@code thenApply} and the like run there, never on the runtime's callback thread, so they may block
 * (even wait for another prediction) without holding up other futures.
 *
 * <p>Overloads taking a {@code timeout} and a {@code priority} give the runtime a deadline (a prediction
 * still unfinished when it passes is dropped, never run late, and fails with
 * {@code QuiverException.DEADLINE_EXCEEDED}) and an order among predictions queued by the scheduling
 * options ({@code max_batch_size}, {@code batch_timeout_us}, {@code instances}, {@code max_queue}).
 * Cancelling a future returned by {@code predictAsync} cancels its prediction in the runtime.
 *
 * <p>Native failures throw {@link QuiverException}. Close the Predictor to release its memory (a
 * {@code Cleaner} releases forgotten ones and logs them); predictions in flight still complete.
 */
public class Predictor implements AutoCloseable {
  private final NativeHandle op;
  private final List<String> inputNames;
  private final List<String> outputNames;
  private final String precision;
  private final Map<String, DType> inputDTypes; // in inputNames order
  private final DataDesc[] descs; // per input, in inputNames order; null where none was given
  private final ThreadLocal<long[][]> lastShapes = new ThreadLocal<>();

  /**
   * A model from files: {@code modelPrefix-symbol.json} and {@code modelPrefix-%04d.params}.
   *
   * <p>The prefix is a local path, a {@code file:} URI, an {@code https://} (or {@code http://}) URL read
   * with the JDK's HTTP client (the JVM's default trust store), or any URI that Hadoop's
   * {@code FileSystem} reads when Hadoop is on the classpath, as on every Spark executor:
   * {@code hdfs://namenode:8020/models/resnet18_v1}, {@code s3a://bucket/models/resnet18_v1},
   * {@code abfs://}, {@code gs://}, ... (Hadoop's configuration is {@code new Configuration()}: the
   * {@code core-site.xml} and {@code hdfs-site.xml} on the classpath). Remote files are read into memory.
   * A missing or unreadable file throws {@link QuiverException} ({@code NOT_FOUND}) naming its URI; a
   * scheme nothing reads here, {@code UNSUPPORTED}.
   */
  public Predictor(String modelPrefix, int epoch, List<DataDesc> inputs) {
    this(modelPrefix, epoch, inputs, Map.of());
  }

  /**
   * A model from files, as {@link #Predictor(String, int, List)}.
   *
   * @param options cached-op flags passed to the runtime as they are ({@code device}, {@code static_shape},
   *     {@code max_inflight}, ...; see docs/c_cpp.rst). {@code data_shapes} defaults to the shapes in
   *     {@code inputs}, compiled now.
   */
  public Predictor(String modelPrefix, int epoch, List<DataDesc> inputs, Map<String, String> options) {
    this(symbolAt(modelPrefix), paramsAt(modelPrefix, epoch), inputs, options);
  }

  /**
   * A model from streams (read to their end, not closed), so that models can come from any storage:
   * Hadoop's FileSystem (HDFS, S3), a jar resource, a zip entry.
   */
  public static Predictor fromStreams(InputStream symbolJson, InputStream params, List<DataDesc> inputs) {
    return fromStreams(symbolJson, params, inputs, Map.of());
  }

  /** {@link #fromStreams(InputStream, InputStream, List)} with cached-op flags. */
  public static Predictor fromStreams(InputStream symbolJson, InputStream params, List<DataDesc> inputs,
                                      Map<String, String> options) {
    final String json;
    final byte[] bytes;
    try {
      json = new String(symbolJson.readAllBytes(), StandardCharsets.UTF_8);
      bytes = params.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("reading the model: " + e.getMessage(), e);
    }
    return new Predictor(out -> QuiverCapi.QvSymbolCreateFromJSON(json, out),
                         (arrays, names) -> QuiverCapi.QvNDArrayLoadFromBuffer(bytes, arrays, names), inputs, options);
  }

  private interface SymbolSource {
    void open(long[] out);
  }

  private interface ParamsSource {
    void load(long[][] arrays, String[][] names);
  }

  /** The symbol of a model prefix: read by the native library from a local path, else here (ModelFiles). */
  private static SymbolSource symbolAt(String modelPrefix) {
    final String local = ModelFiles.localPath(Objects.requireNonNull(modelPrefix, "modelPrefix"));
    if (local != null) {
      return out -> QuiverCapi.QvSymbolCreateFromFile(local + "-symbol.json", out);
    }
    final String uri = modelPrefix + "-symbol.json";
    return out -> QuiverCapi.QvSymbolCreateFromJSON(
        ModelFiles.text(ModelFiles.read(uri, "symbol file"), "symbol file", uri), out);
  }

  private static ParamsSource paramsAt(String modelPrefix, int epoch) {
    final String local = ModelFiles.localPath(modelPrefix);
    final String suffix = String.format(Locale.ROOT, "-%04d.params", epoch);
    if (local != null) {
      return (arrays, names) -> QuiverCapi.QvNDArrayLoad(local + suffix, arrays, names);
    }
    final String uri = modelPrefix + suffix;
    return (arrays, names) -> QuiverCapi.QvNDArrayLoadFromBuffer(ModelFiles.read(uri, "params file"), arrays, names);
  }

  private Predictor(SymbolSource symbol, ParamsSource params, List<DataDesc> inputs, Map<String, String> options) {
    final Map<String, String> flags = flags(inputs, options);
    final long[] sym = new long[1];
    symbol.open(sym);
    final long[] out = new long[1];
    try {
      final long[][] arrays = new long[1][];
      final String[][] names = new String[1][];
      params.load(arrays, names);
      try {
        if (names[0].length != arrays[0].length) {
          throw new QuiverException(QuiverException.NOT_FOUND,
              "the .params file stores no parameter names; Quiver binds parameters by name");
        }
        final String[] keys = flags.keySet().toArray(new String[0]);
        final String[] vals = flags.values().toArray(new String[0]);
        QuiverCapi.QvCreateCachedOpEx(sym[0], arrays[0].length, names[0], arrays[0], keys.length, keys, vals, out, 1);
      } finally {
        for (long array : arrays[0]) {
          QuiverCapi.QvNDArrayFree(array);
        }
      }
    } finally {
      QuiverCapi.QvSymbolFree(sym[0]);
    }
    this.op = new NativeHandle(this, out[0], h -> QuiverCapi.QvFreeCachedOp(h), "Predictor");
    try {
      final String[][] names = new String[1][];
      QuiverCapi.QvCachedOpListInputs(out[0], names);
      this.inputNames = List.of(names[0]);
      QuiverCapi.QvCachedOpListOutputs(out[0], names);
      this.outputNames = List.of(names[0]);
      final String[] precisionName = new String[1];
      QuiverCapi.QvCachedOpGetPrecision(out[0], precisionName);
      this.precision = precisionName[0];
      this.inputDTypes = readInputDTypes(out[0], inputNames);
      this.descs = descsInOrder(inputs, inputNames);
    } catch (RuntimeException e) {
      op.close();
      throw e;
    }
  }

  private static Map<String, DType> readInputDTypes(long op, List<String> inputNames) {
    final Map<String, DType> dtypes = new LinkedHashMap<>();
    final int[] code = new int[1];
    for (int i = 0; i < inputNames.size(); ++i) {
      QuiverCapi.QvCachedOpGetInputDType(op, i, code);
      dtypes.put(inputNames.get(i), DType.fromCode(code[0]));
    }
    return Collections.unmodifiableMap(dtypes);
  }

  private static DataDesc[] descsInOrder(List<DataDesc> inputs, List<String> inputNames) {
    final DataDesc[] descs = new DataDesc[inputNames.size()];
    for (DataDesc desc : inputs) {
      final int index = inputNames.indexOf(desc.name());
      if (index < 0) {
        throw new QuiverException(QuiverException.INVALID_ARGUMENT, "a DataDesc names input '" + desc.name()
            + "', which the model does not take (its inputs: " + inputNames + ")");
      }
      descs[index] = desc;
    }
    return descs;
  }

  private static Map<String, String> flags(List<DataDesc> inputs, Map<String, String> options) {
    Objects.requireNonNull(inputs, "inputs");
    Objects.requireNonNull(options, "options");
    final Map<String, String> flags = new LinkedHashMap<>();
    final List<String> shapes = new ArrayList<>();
    final List<String> types = new ArrayList<>();
    for (DataDesc desc : inputs) {
      if (desc.shape().length > 0) {
        shapes.add(desc.name() + ":" + Shape.of(desc.shape()).toString().replace(" ", ""));
      }
      if (desc.dtype() != DType.FLOAT32) { // float32 is the default: the symbol's declaration stays in force
        types.add(desc.name() + ":" + desc.dtype().name().toLowerCase(Locale.ROOT));
      }
    }
    if (!shapes.isEmpty()) {
      flags.put("data_shapes", String.join(";", shapes));
    }
    if (!types.isEmpty()) {
      flags.put("data_types", String.join(";", types));
    }
    options.forEach((key, value) -> {
      if (key == null || value == null) {
        throw new QuiverException(QuiverException.INVALID_ARGUMENT, "options hold a null key or value");
      }
      flags.put(key, value);
    });
    return flags;
  }

  /** The data inputs, in the order predictions take them. */
  public List<String> inputNames() {
    return inputNames;
  }

  /** The outputs, in the order predictions return them. */
  public List<String> outputNames() {
    return outputNames;
  }

  /**
   * The element type each input takes, in {@link #inputNames()} order: its DataDesc's dtype, else what
   * the symbol declares for it ({@code mx.sym.var(name, dtype=...)}), else float32. An NDArray of another
   * type is refused with {@code QuiverException.SHAPE}; {@code float[]} inputs need float32.
   */
  public Map<String, DType> inputDTypes() {
    return inputDTypes;
  }

  /**
   * What the model computes in: {@code "float32"}, {@code "bfloat16"} or {@code "int8"}, as the
   * {@code precision} option resolved on this machine ({@code "auto"} becomes one of them).
   */
  public String precision() {
    return precision;
  }

  /** The DataDesc given for an input, if any. */
  public Optional<DataDesc> inputDesc(String name) {
    final int index = inputNames.indexOf(name);
    return index < 0 ? Optional.empty() : Optional.ofNullable(descs[index]);
  }

  /** Runs the model and waits: one row-major array per output. */
  public float[][] predict(float[]... inputs) {
    return predict(null, 0, inputs);
  }

  /**
   * {@link #predict(float[]...)} with a deadline and a priority.
   *
   * @param timeout how long the prediction may take from now (positive), or null for no limit; past it
   *     this throws {@code QuiverException.DEADLINE_EXCEEDED}
   * @param priority higher runs first among predictions queued on this Predictor (0 by default; it only
   *     matters with the scheduling options)
   */
  public float[][] predict(Duration timeout, int priority, float[]... inputs) {
    return readAndFree(waitFor(submit(Scheduling.of(timeout, priority), inputs)));
  }

  /**
   * Submits a prediction and returns at once. Throws at once for inputs that do not fit and, with
   * {@code QuiverException.BUSY}, when {@code max_inflight} predictions are in flight; failures of the
   * computation complete the future exceptionally with a {@link QuiverException}.
   */
  public CompletableFuture<float[][]> predictAsync(float[]... inputs) {
    return predictAsync(null, 0, inputs);
  }

  /**
   * {@link #predictAsync(float[]...)} with a deadline and a priority (see
   * {@link #predict(Duration, int, float[]...)}): past the timeout the future fails with
   * {@code QuiverException.DEADLINE_EXCEEDED}. {@code cancel} on the future cancels the prediction.
   */
  public CompletableFuture<float[][]> predictAsync(Duration timeout, int priority, float[]... inputs) {
    return PredictionFuture.of(submit(Scheduling.of(timeout, priority), inputs), Predictor::readAndFree,
                               result -> {}, null);
  }

  /** Runs the model on arrays (no copies) and waits; the outputs are the caller's to close. */
  public NDArray[] predict(NDArray... inputs) {
    return wrap(waitFor(invoke(null, inputs)));
  }

  /**
   * {@link #predict(NDArray...)} without waiting. The inputs are kept alive (and must not be written)
   * until the runtime has let go of them, also when the future is cancelled; its outputs are the
   * caller's to close.
   */
  public CompletableFuture<NDArray[]> predictAsync(NDArray... inputs) {
    return predictAsync(null, 0, inputs);
  }

  /** {@link #predictAsync(NDArray...)} with a deadline and a priority, as for {@code float[]} inputs. */
  public CompletableFuture<NDArray[]> predictAsync(Duration timeout, int priority, NDArray... inputs) {
    return PredictionFuture.of(invoke(Scheduling.of(timeout, priority), inputs), Predictor::wrap,
                               Predictor::closeAll, inputs.clone());
  }

  /**
   * Runs the model on arrays given by input name and waits. {@code inputs} holds every one of the model's
   * {@link #inputNames()} (in any order; other keys are ignored); the result holds every output by name,
   * in {@link #outputNames()} order, each the caller's to close.
   */
  public Map<String, NDArray> predict(Map<String, NDArray> inputs) {
    return named(predict(inOrder(inputs)));
  }

  /** {@link #predict(Map)} without waiting, as {@link #predictAsync(NDArray...)}. */
  public CompletableFuture<Map<String, NDArray>> predictAsync(Map<String, NDArray> inputs) {
    final NDArray[] arrays = inOrder(inputs);
    return PredictionFuture.of(invoke(null, arrays), outputs -> named(wrap(outputs)),
                               result -> closeAll(result.values().toArray(new NDArray[0])), arrays);
  }

  /** The shape of an output of the most recent prediction submitted by this thread on this Predictor. */
  public long[] lastOutputShape(int output) {
    final long[][] shapes = lastShapes.get();
    if (shapes == null) {
      throw new IllegalStateException("no prediction was submitted on this thread yet");
    }
    return shapes[output].clone();
  }

  /** What the model has done since it was loaded: requests, queue waits, run times, batches, plans. */
  public ModelStats stats() {
    return ModelStats.fromJson(statsJson());
  }

  /** {@link #stats()} as the runtime writes it ({@code QvCachedOpGetStats}'s JSON). */
  public String statsJson() {
    final String[] json = new String[1];
    final long handle = op.acquire();
    try {
      QuiverCapi.QvCachedOpGetStats(handle, json);
    } finally {
      op.release();
    }
    return json[0];
  }

  /** Releases the model's native memory. Predictions in flight still complete. Idempotent. */
  @Override
  public void close() {
    op.close();
  }

  public boolean isClosed() {
    return op.isClosed();
  }

  @Override
  public String toString() {
    return "Predictor(inputs " + inputNames + ", outputs " + outputNames + (isClosed() ? ", closed)" : ")");
  }

  // -- internals ----------------------------------------------------------------------------------

  /** A prediction's deadline (microseconds from submission, 0: none) and priority. */
  private record Scheduling(long deadlineUs, int priority) {
    /** null for the defaults, so that those calls stay on QvInvokeAsync. */
    static Scheduling of(Duration timeout, int priority) {
      if (timeout == null) {
        return priority == 0 ? null : new Scheduling(0, priority);
      }
      if (timeout.isNegative() || timeout.isZero()) {
        throw new QuiverException(QuiverException.INVALID_ARGUMENT, "the timeout must be positive, got " + timeout);
      }
      // Rounded up, so that a sub-microsecond timeout is still a deadline (0 would mean none).
      final long deadlineUs = TimeUnit.MICROSECONDS.convert(timeout.plusNanos(999));
      return new Scheduling(deadlineUs, priority);
    }
  }

  /** Copies the inputs into new native arrays and invokes; the runtime keeps what it reads. */
  private long[] submit(Scheduling scheduling, float[]... inputs) {
    checkCount(inputs.length);
    final long[] arrays = new long[inputs.length];
    try {
      for (int i = 0; i < inputs.length; ++i) {
        arrays[i] = NDArray.newFloats(inputs[i], shapeOf(i, inputs[i]));
      }
      return invoke(scheduling, arrays);
    } finally {
      free(arrays);
    }
  }

  private long[] invoke(Scheduling scheduling, NDArray... inputs) {
    checkCount(inputs.length);
    final long[] handles = new long[inputs.length];
    int acquired = 0;
    try {
      for (; acquired < inputs.length; ++acquired) {
        handles[acquired] = inputs[acquired].acquire();
      }
      return invoke(scheduling, handles);
    } finally {
      for (int i = 0; i < acquired; ++i) {
        inputs[i].release();
      }
    }
  }

  private long[] invoke(Scheduling scheduling, long[] inputs) {
    final long[][] outputs = new long[1][];
    final long h = op.acquire();
    try {
      if (scheduling == null) {
        QuiverCapi.QvInvokeAsync(h, inputs, outputs);
      } else {
        QuiverCapi.QvjInvokeAsyncEx(h, inputs, outputs, scheduling.deadlineUs(), scheduling.priority());
      }
    } finally {
      op.release();
    }
    try {
      final long[][] shapes = new long[outputs[0].length][];
      final long[][] dims = new long[1][];
      for (int i = 0; i < shapes.length; ++i) {
        QuiverCapi.QvNDArrayGetShape(outputs[0][i], dims);
        shapes[i] = dims[0];
      }
      lastShapes.set(shapes);
    } catch (RuntimeException e) {
      free(outputs[0]);
      throw e;
    }
    return outputs[0];
  }

  /** Waits until the outputs are readable; on a failure frees them and throws it. */
  private static long[] waitFor(long[] outputs) {
    try {
      for (long output : outputs) {
        QuiverCapi.QvNDArrayWaitToRead(output);
      }
      return outputs;
    } catch (RuntimeException e) {
      free(outputs);
      throw e;
    }
  }

  /**
   * The model's inputs picked by name, in inputNames order (other keys are ignored, as in a row with
   * more columns than the model takes); throws naming what is missing and what the mapping holds.
   */
  private NDArray[] inOrder(Map<String, NDArray> inputs) {
    Objects.requireNonNull(inputs, "inputs");
    final List<String> missing = new ArrayList<>();
    final NDArray[] arrays = new NDArray[inputNames.size()];
    for (int i = 0; i < arrays.length; ++i) {
      arrays[i] = inputs.get(inputNames.get(i));
      if (arrays[i] == null) {
        missing.add(inputNames.get(i));
      }
    }
    if (!missing.isEmpty()) {
      throw new QuiverException(QuiverException.INVALID_ARGUMENT, "the model takes inputs " + inputNames
          + "; missing " + missing + " among " + new ArrayList<>(inputs.keySet()));
    }
    return arrays;
  }

  /** Outputs by name, in outputNames order. */
  private Map<String, NDArray> named(NDArray[] outputs) {
    final Map<String, NDArray> byName = new LinkedHashMap<>();
    for (int i = 0; i < outputs.length; ++i) {
      if (byName.put(outputNames.get(i), outputs[i]) != null) {
        closeAll(outputs);
        throw new QuiverException(QuiverException.INVALID_ARGUMENT, "the model returns output '"
            + outputNames.get(i) + "' more than once: use predict(NDArray...)");
      }
    }
    return byName;
  }

  private void checkCount(int count) {
    if (count != inputNames.size()) {
      throw new QuiverException(QuiverException.INVALID_ARGUMENT, "the model takes " + inputNames.size()
          + " input(s) " + inputNames + ", got " + count);
    }
  }

  /** The shape of input i for a float[] of this length: the DataDesc's, with the batch size from the length. */
  private long[] shapeOf(int i, float[] values) {
    final String name = inputNames.get(i);
    final DataDesc desc = descs[i];
    if (values == null) {
      throw new QuiverException(QuiverException.INVALID_ARGUMENT, "input '" + name + "' is null");
    }
    if (desc == null || desc.shape().length == 0) {
      throw new QuiverException(QuiverException.INVALID_ARGUMENT, "input '" + name + "' has no DataDesc with a "
          + "shape: a float[] needs one (or pass an NDArray)");
    }
    final DType dtype = inputDTypes.get(name);
    if (dtype != DType.FLOAT32) {
      throw new QuiverException(QuiverException.SHAPE, "input '" + name + "' takes " + dtype
          + " elements: pass an NDArray instead of a float[]");
    }
    final long[] shape = desc.shape();
    final int batchAxis = desc.axis('N');
    if (values.length == Shape.of(shape).size() || batchAxis < 0) {
      return shape;
    }
    shape[batchAxis] = 1;
    final long sample = Shape.of(shape).size();
    if (sample == 0 || values.length % sample != 0) {
      throw new QuiverException(QuiverException.SHAPE, "input '" + name + "': " + values.length
          + " floats are not a whole number of samples of shape " + Shape.of(shape));
    }
    shape[batchAxis] = values.length / sample;
    return shape;
  }

  private static float[][] readAndFree(long[] outputs) {
    try {
      final float[][] results = new float[outputs.length][];
      final long[][] dims = new long[1][];
      for (int i = 0; i < outputs.length; ++i) {
        QuiverCapi.QvNDArrayGetShape(outputs[i], dims);
        results[i] = new float[Math.toIntExact(Shape.of(dims[0]).size())];
        QuiverCapi.QvjReadFloats(outputs[i], results[i]);
      }
      return results;
    } finally {
      free(outputs);
    }
  }

  private static NDArray[] wrap(long[] outputs) {
    final NDArray[] arrays = new NDArray[outputs.length];
    int wrapped = 0;
    try {
      for (; wrapped < outputs.length; ++wrapped) {
        arrays[wrapped] = new NDArray(outputs[wrapped], null);
      }
      return arrays;
    } finally {
      if (wrapped < outputs.length) { // a failure: the arrays made close their handles, free the rest
        closeAll(arrays);
        free(Arrays.copyOfRange(outputs, wrapped, outputs.length));
      }
    }
  }

  private static void closeAll(NDArray[] arrays) {
    for (NDArray array : arrays) {
      if (array != null) {
        array.close();
      }
    }
  }

  private static void free(long[] arrays) {
    for (long array : arrays) {
      if (array != 0) {
        QuiverCapi.QvNDArrayFree(array);
      }
    }
  }
}
