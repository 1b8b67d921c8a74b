package dev.steptrace.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The decompressed content of a gzip file (RFC 1952), member after member, every member checked: its
 * header, its CRC-32 and its length. {@code java.util.zip.GZIPInputStream} is not used because it
 * drops the bytes it inflated in a call that then meets corrupt data (an early bad byte would lose
 * every event before it) and lets bytes that are not gzip after the last member pass unreported.
 *
 * <p>Damage ends the content with an {@link InputDamage}, thrown once every byte before it has been
 * handed out: cut short, a header that is not gzip, bytes after the last member that are not a member,
 * corrupt deflate data, or a member whose CRC-32 or length does not match its trailer (its content
 * may then be wrong: docs/architecture.md, "Damage", says what the reader does with it).
 * Concatenated members (gzip's multi-member files) are one content.
 */
final class GzipInput extends InputStream {
    private static final int BUFFER = 1 << 16;
    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;
    private static final int RESERVED_FLAGS = 0xE0;

    private final Path file;
    private final InputStream raw;
    private final byte[] one = new byte[1];
    private final byte[] in = new byte[BUFFER];
    /** Unread compressed bytes are {@code in[inPos, inLen)}; {@code in[0]} is file byte {@code bufFileStart}. */
    private int inPos;
    private int inLen;
    private long bufFileStart;

    private final Inflater inflater = new Inflater(true);
    private final CRC32 crc = new CRC32();
    private int member;
    private long memberStart;
    private long memberOut;
    private long deflateFileStart;
    private boolean inBody;
    private boolean done;
    private InputDamage pending;
    /** Decompressed bytes handed out. */
    private long out;

    /**
     * @param file the file (read again, from a member's start, only after corrupt data: see {@link #goodBytesBefore})
     * @param raw  the file's bytes from its start
     */
    GzipInput(Path file, InputStream raw) {
        this.file = file;
        this.raw = raw;
    }

    @Override
    public int read() throws IOException {
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (pending != null) {
            throw pending;
        }
        if (done) {
            return -1;
        }
        if (len == 0) {
            return 0;
        }
        while (true) {
            if (!inBody && !startMember()) {
                done = true;
                return -1;
            }
            int n = inflate(b, off, len);
            if (n > 0) {
                return n;
            }
        }
    }

    @Override
    public void close() throws IOException {
        inflater.end();
        raw.close();
    }

    /** Inflates into {@code b}; 0 once the member's data is finished and its trailer checked. */
    private int inflate(byte[] b, int off, int len) throws IOException {
        while (true) {
            if (inflater.needsInput()) {
                if (!fill()) {
                    throw InputDamage.endsEarly("gzip data cut short (truncated) in member " + member);
                }
                inflater.setInput(in, inPos, inLen - inPos);
            }
            int n;
            try {
                n = inflater.inflate(b, off, len);
            } catch (DataFormatException e) {
                // The bytes this call inflated before the bad data are lost with the exception: work out
                // how many there were, so every event before the damage can still be kept.
                int good = goodBytesBefore(b, off, len);
                out += good;
                memberOut += good;
                pending = InputDamage.corrupt("gzip member " + member + " holds corrupt deflate data ("
                        + (e.getMessage() == null ? "invalid" : e.getMessage()) + ")", memberStart);
                if (good > 0) {
                    return good;
                }
                throw pending;
            }
            inPos = inLen - inflater.getRemaining();
            if (n > 0) {
                crc.update(b, off, n);
                out += n;
                memberOut += n;
                return n;
            }
            if (inflater.finished()) {
                checkTrailer();
                inBody = false;
                return 0;
            }
            if (!inflater.needsInput()) {
                // A raw deflate stream never asks for a dictionary: this is not gzip data.
                throw InputDamage.corrupt("gzip member " + member + " holds corrupt deflate data (it asks for a"
                        + " preset dictionary)", memberStart);
            }
        }
    }

    /**
     * Inflates the current member again from its start, up to the bad data, to find how many bytes the
     * failed call had produced (into {@code b}, byte by byte): deflate output does not depend on how it is
     * asked for. Runs only on corrupt files.
     */
    private int goodBytesBefore(byte[] b, int off, int len) throws IOException {
        Inflater again = new Inflater(true);
        try (InputStream f = Files.newInputStream(file)) {
            f.skipNBytes(deflateFileStart);
            byte[] input = new byte[BUFFER];
            byte[] scratch = new byte[BUFFER];
            long skip = memberOut;
            int good = 0;
            while (good < len && !again.finished()) {
                if (again.needsInput()) {
                    int r = f.read(input);
                    if (r < 0) {
                        return good;
                    }
                    again.setInput(input, 0, r);
                }
                try {
                    if (skip > 0) {
                        skip -= again.inflate(scratch, 0, (int) Math.min(scratch.length, skip));
                    } else {
                        good += again.inflate(b, off + good, 1);
                    }
                } catch (DataFormatException e) {
                    return good;
                }
            }
            return good;
        } finally {
            again.end();
        }
    }

    private void checkTrailer() throws IOException {
        long storedCrc = 0;
        long storedSize = 0;
        for (int i = 0; i < 8; i++) {
            int c = rawByte();
            if (c < 0) {
                throw InputDamage.endsEarly("gzip data cut short in the trailer of member " + member
                        + " (its CRC-32 cannot be checked)");
            }
            if (i < 4) {
                storedCrc |= (long) c << (8 * i);
            } else {
                storedSize |= (long) c << (8 * (i - 4));
            }
        }
        if (storedCrc != crc.getValue()) {
            throw InputDamage.corrupt("gzip member " + member + " fails its CRC-32 check", memberStart);
        }
        if (storedSize != (memberOut & 0xFFFFFFFFL)) {
            throw InputDamage.corrupt("gzip member " + member + " fails its length check (its trailer says "
                    + storedSize + " bytes modulo 2^32, it inflates to " + memberOut + ")", memberStart);
        }
    }

    /** Reads the next member's header; false at the end of the file. */
    private boolean startMember() throws IOException {
        long at = fileOffset();
        int id1 = rawByte();
        if (id1 < 0 && member > 0) {
            return false;
        }
        int id2 = rawByte();
        if (id1 != 0x1F || id2 != 0x8B) {
            if (member == 0) {
                throw InputDamage.endsEarly("not gzip (no gzip magic number)");
            }
            long extra = (id2 < 0 ? 1 : 2) + drain();
            throw InputDamage.endsEarly(extra + (extra == 1 ? " byte" : " bytes") + " after the end of the gzip data"
                    + " (from byte " + at + " of the file) are not gzip: not read");
        }
        CRC32 header = new CRC32();
        header.update(id1);
        header.update(id2);
        int method = headerByte(header);
        int flags = headerByte(header);
        for (int i = 0; i < 6; i++) {
            headerByte(header); // MTIME, XFL, OS
        }
        if (method != 8) {
            throw badHeader(at, "compression method " + method + ", not deflate");
        }
        if ((flags & RESERVED_FLAGS) != 0) {
            throw badHeader(at, "reserved flag bits set");
        }
        if ((flags & FEXTRA) != 0) {
            int extraLength = headerByte(header) | headerByte(header) << 8;
            for (int i = 0; i < extraLength; i++) {
                headerByte(header);
            }
        }
        if ((flags & FNAME) != 0) {
            while (headerByte(header) != 0) {
                // the original file name
            }
        }
        if ((flags & FCOMMENT) != 0) {
            while (headerByte(header) != 0) {
                // a comment
            }
        }
        if ((flags & FHCRC) != 0) {
            int expected = (int) (header.getValue() & 0xFFFF);
            if ((headerByte(null) | headerByte(null) << 8) != expected) {
                throw badHeader(at, "header CRC mismatch");
            }
        }
        member++;
        memberStart = out;
        memberOut = 0;
        deflateFileStart = fileOffset();
        inflater.reset();
        crc.reset();
        inBody = true;
        return true;
    }

    private InputDamage badHeader(long at, String what) {
        return InputDamage.endsEarly("corrupt gzip header of member " + (member + 1) + " at byte " + at
                + " of the file (" + what + ")");
    }

    private int headerByte(CRC32 header) throws IOException {
        int c = rawByte();
        if (c < 0) {
            throw InputDamage.endsEarly("gzip data cut short (truncated) in the header of member " + (member + 1));
        }
        if (header != null) {
            header.update(c);
        }
        return c;
    }

    /** Reads the rest of the file, returning how many bytes it had. */
    private long drain() throws IOException {
        long n = inLen - inPos;
        inPos = inLen;
        while (fill()) {
            n += inLen - inPos;
            inPos = inLen;
        }
        return n;
    }

    private int rawByte() throws IOException {
        if (inPos == inLen && !fill()) {
            return -1;
        }
        return in[inPos++] & 0xFF;
    }

    /** Makes unread compressed bytes available; false at the end of the file. */
    private boolean fill() throws IOException {
        if (inPos < inLen) {
            return true;
        }
        bufFileStart += inLen;
        inPos = 0;
        inLen = 0;
        int n = raw.read(in, 0, in.length);
        if (n <= 0) {
            return false;
        }
        inLen = n;
        return true;
    }

    private long fileOffset() {
        return bufFileStart + inPos;
    }
}
