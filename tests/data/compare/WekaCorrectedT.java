// Prints WEKA's PairedCorrectedTTester statistics of every result set against the first one.
// Lives in weka.experiment so it can read the tester's prepared data sets (protected fields).
// Build and run: see make_weka_fixture.py (javac -cp /usr/share/java/weka.jar ...).
package weka.experiment;

import java.io.BufferedReader;
import java.io.FileReader;
import weka.core.Instance;
import weka.core.Instances;
import weka.core.Range;

public class WekaCorrectedT extends PairedCorrectedTTester {
  public static void main(String[] args) {
    try {
      run(args);
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  static void run(String[] args) throws Exception {
    Instances data = new Instances(new BufferedReader(new FileReader(args[0])));
    WekaCorrectedT tt = new WekaCorrectedT();
    tt.setInstances(data);
    tt.setDatasetKeyColumns(new Range("1"));
    tt.setRunColumn(data.attribute("Key_Run").index());
    tt.setFoldColumn(data.attribute("Key_Fold").index());
    tt.setResultsetKeyColumns(new Range("4,5,6"));
    tt.setSignificanceLevel(0.05);
    int column = data.attribute(args[1]).index();
    tt.prepareData();
    Instance spec = tt.m_DatasetSpecifiers.specifier(0);
    System.out.println("model,baseline,mean,sd,count,p_value,significance");
    for (int i = 1; i < tt.getNumResultsets(); i++) {
      PairedStats s = tt.calculateStatistics(spec, i, 0, column);
      System.out.println(
          tt.getResultsetName(i) + "," + tt.getResultsetName(0) + ","
              + s.differencesStats.mean + "," + s.differencesStats.stdDev + ","
              + s.count + "," + s.differencesProbability + "," + s.differencesSignificance);
    }
  }
}
