package dev.postbox.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The file system's own cost of removing what a partition drop removes: a file of the same size, written and
 * synced on the database's file system (beside its data directory), removed while the same workload runs. A
 * database frees a dropped table's storage by removing its files, so this is the least a drop of that many bytes
 * can cost the writers there, whatever the database does around it (on a file system mounted with
 * {@code discard} the removal waits for the device's TRIM and stalls other writes meanwhile).
 */
final class FsCeiling {

    private static final int CHUNK = 1 << 20;

    private FsCeiling() {
    }

    /**
     * A directory on the same file system as the database's data directory, or null (printed why) when the data
     * directory is not on this machine or not writable here.
     */
    static Path directory(BenchContext ctx) {
        String sql = ctx.db.kind().equals("mariadb") ? "SELECT @@datadir" : "SHOW data_directory";
        String data;
        try (Connection c = ctx.db.connect()) {
            data = BenchDatabase.queryString(c, sql);
        } catch (SQLException e) {
            Fmt.line("FS_CEILING skipped: the data directory could not be read (" + e.getMessage() + ")");
            return null;
        }
        Path dir = Path.of(data);
        try {
            Path parent = dir.getParent();
            if (!Files.isDirectory(dir) || parent == null || !Files.isWritable(parent)
                    || !Files.getFileStore(parent).equals(Files.getFileStore(dir))) {
                Fmt.line("FS_CEILING skipped: the data directory " + data + " is not a directory on this machine"
                        + " whose parent is writable and on the same file system");
                return null;
            }
            return parent;
        } catch (IOException e) {
            Fmt.line("FS_CEILING skipped: " + data + ": " + e.getMessage());
            return null;
        }
    }

    /** Writes a file of {@code bytes} (incompressible data) into {@code dir} and syncs it; returns its path. */
    static Path write(Path dir, long bytes) throws IOException {
        Path file = dir.resolve("postbox-bench-fs-ceiling-" + ProcessHandle.current().pid() + ".dat");
        byte[] data = new byte[CHUNK];
        ThreadLocalRandom.current().nextBytes(data);
        long t0 = System.nanoTime();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long written = 0; written < bytes; written += CHUNK) {
                ByteBuffer b = ByteBuffer.wrap(data, 0, (int) Math.min(CHUNK, bytes - written));
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            }
            ch.force(true);
        }
        Fmt.line("FS_CEILING wrote " + bytes + " bytes to " + file + " seconds=" + Fmt.two((System.nanoTime() - t0) / 1e9)
                + " (not measured)");
        return file;
    }

    /** Removes {@code file} on its own thread after {@code delayMs}; {@link #nanos()} tells how long it took. */
    static final class Removal {
        private final Thread thread;
        private volatile long nanos = -1;

        Removal(Path file, long delayMs) {
            this.thread = new Thread(() -> {
                try {
                    Thread.sleep(delayMs);
                    long t0 = System.nanoTime();
                    Files.delete(file);
                    nanos = System.nanoTime() - t0;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (IOException e) {
                    System.err.println("WARN removing " + file + ": " + e);
                }
            }, "bench-fs-ceiling");
            thread.start();
        }

        void join() throws InterruptedException {
            thread.join();
        }

        /** How long the removal took, -1 when it did not happen. */
        long nanos() {
            return nanos;
        }
    }
}
