import dev.remixdb.*;
import java.nio.file.*;
import java.util.*;
public class Lat {
  public static void main(String[] a) throws Exception {
    Path dir = Path.of(a[0]);
    int n = 4_000_000;
    int[] order = new int[n]; for (int i=0;i<n;i++) order[i]=i;
    Random r = new Random(42); for (int i=n-1;i>0;i--){int j=r.nextInt(i+1);int t=order[i];order[i]=order[j];order[j]=t;}
    byte[] v = new byte[120]; r.nextBytes(v);
    long t0 = System.nanoTime();
    try (RemixDB db = RemixDB.open(dir, Options.builder().memtableBytes(256L<<20).blockCacheBytes(1024L<<20).build())) {
      for (int i=0;i<n;i++) {
        byte[] k = String.format("%016x", order[i]).getBytes();
        long s = System.nanoTime();
        db.put(k, v);
        long d = System.nanoTime()-s;
        if (d > 3_000_000) System.out.printf("put %d at %.3f s took %.2f ms%n", i, (s-t0)/1e9, d/1e6);
      }
      System.out.printf("done %.2f s%n", (System.nanoTime()-t0)/1e9);
    }
  }
}
