package io.flash.common.testing;

import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A real S3 API server for tests: s3proxy in this JVM, objects in a directory on disk, requests
 * signed with {@link #ACCESS_KEY}/{@link #SECRET_KEY} (AWS signature v2 or v4) as a real store wants.
 */
public final class S3Server implements AutoCloseable {

    public static final String ACCESS_KEY = "flash-test";
    public static final String SECRET_KEY = "flash-test-secret";

    private final S3Proxy proxy;
    private final BlobStoreContext context;
    private final int port;

    public S3Server(int port, Path dir) throws Exception {
        Files.createDirectories(dir);
        Properties overrides = new Properties();
        overrides.setProperty("jclouds.filesystem.basedir", dir.toString());
        context = ContextBuilder.newBuilder("filesystem").credentials("identity", "credential").overrides(overrides)
                .build(BlobStoreContext.class);
        proxy = S3Proxy.builder().blobStore(context.getBlobStore()).endpoint(URI.create("http://127.0.0.1:" + port))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY).build();
        proxy.start();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!"STARTED".equals(proxy.getState()) && System.nanoTime() < deadline) Thread.sleep(10);
        if (!"STARTED".equals(proxy.getState())) throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
        this.port = proxy.getPort();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public void createBucket(String bucket) {
        context.getBlobStore().createContainerInLocation(null, bucket);
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
        context.close();
    }
}
