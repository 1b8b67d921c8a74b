package dev.steptrace.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system ({@code file:}) with permissions set through java.nio. Without Hadoop's native
 * library, {@link RawLocalFileSystem} starts a {@code chmod} process for every file and directory it makes:
 * for a capture of many small ranks in local mode (a dataset of thousands of files), more time than the
 * analysis.
 */
public final class NioLocalFileSystem extends LocalFileSystem {
    /** Permission bits from the lowest: others' execute, write, read, then the group's, then the owner's. */
    private static final PosixFilePermission[] BITS = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};

    public NioLocalFileSystem() {
        super(new Raw());
    }

    /** Makes {@code file:} paths of this configuration use this file system (a new instance each time: no cache). */
    static void use(Configuration conf) {
        conf.set("fs.file.impl", NioLocalFileSystem.class.getName());
        conf.setBoolean("fs.file.impl.disable.cache", true);
    }

    /** The raw file system under the checksums: {@link RawLocalFileSystem} but for the permissions. */
    static final class Raw extends RawLocalFileSystem {
        @Override
        public void setPermission(Path p, FsPermission permission) throws IOException {
            Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
            short mode = permission.toShort();
            for (int i = 0; i < BITS.length; i++) {
                if ((mode & (1 << i)) != 0) {
                    set.add(BITS[i]);
                }
            }
            try {
                Files.setPosixFilePermissions(pathToFile(p).toPath(), set);
            } catch (UnsupportedOperationException notPosix) {
                super.setPermission(p, permission);
            }
        }
    }
}
