package io.quiver.infer;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnsupportedFileSystemException;

/**
 * Reads files through Hadoop's {@code FileSystem}. The only class that names Hadoop's types: it is
 * loaded only once {@link ModelFiles} has found Hadoop on the classpath, so that the jar runs without it
 * (Hadoop is a provided dependency).
 *
 * <p>The configuration is {@code new Configuration()}: Hadoop's defaults and the {@code core-site.xml},
 * {@code hdfs-site.xml} on the classpath, as a cluster's {@code HADOOP_CONF_DIR} provides them. File
 * systems come from Hadoop's cache and stay open (closing one would close it for every other user in
 * the JVM, such as Spark).
 */
final class HadoopFiles {
  private HadoopFiles() {}

  /** The whole file at {@code uri}, or null when it does not exist; {@code what} it is names it in errors. */
  static byte[] readIfPresent(URI uri, String what) throws IOException {
    final Path path = new Path(uri);
    final FileSystem fs;
    try {
      fs = path.getFileSystem(new Configuration());
    } catch (UnsupportedFileSystemException e) {
      throw new QuiverException(QuiverException.UNSUPPORTED, "cannot read the " + what + " " + uri
          + ": Hadoop has no FileSystem for the scheme (" + e.getMessage() + "); its module, such as hadoop-aws "
          + "for s3a://, is not on the classpath", e);
    }
    try (FSDataInputStream in = fs.open(path)) {
      return in.readAllBytes();
    } catch (FileNotFoundException e) {
      return null;
    }
  }
}
