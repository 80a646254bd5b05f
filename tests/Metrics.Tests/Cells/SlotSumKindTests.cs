using ScalableMetrics.Cells;

namespace ScalableMetrics.Tests.Cells;

/// <summary>The vectorized sums of wrapping and double slots agree with a scalar sum at every length (whole vectors, a tail, both).</summary>
public class SlotSumKindTests
{
    public static TheoryData<int> Lengths => [1, 3, 4, 7, 8, 9, 17, 33];

    [Theory]
    [MemberData(nameof(Lengths))]
    public void WrappingSumWrapsEachElementExactly(int length)
    {
        long[] sums = new long[length];
        long[] slots = new long[length];
        long[] expected = new long[length];
        for (int i = 0; i < length; i++)
        {
            // Opposite signs, and sums that pass long.MaxValue: a wrap then an unwrap, as partitions of an up-down counter do.
            sums[i] = i % 2 == 0 ? long.MaxValue - i : -1000 * i;
            slots[i] = i % 2 == 0 ? 10 + i : 3 * i;
            expected[i] = unchecked(sums[i] + slots[i]);
        }

        WrappingSum.AddInto(sums, slots);
        Assert.Equal(expected, sums);

        // Adding the negations back returns every element to where it started.
        WrappingSum.AddInto(sums, slots.Select(slot => -slot).ToArray());
        Assert.Equal(expected.Zip(slots, (sum, slot) => unchecked(sum - slot)), sums);
    }

    [Theory]
    [MemberData(nameof(Lengths))]
    public void DoubleSumAddsEachElementAsADouble(int length)
    {
        double[] sums = new double[length];
        double[] slots = new double[length];
        for (int i = 0; i < length; i++)
        {
            sums[i] = 0.25 * i;
            slots[i] = i % 3 == 0 ? -0.5 * i : 1e300;
        }

        double[] expected = sums.Zip(slots, (sum, slot) => sum + slot).ToArray();
        long[] sumBits = sums.Select(BitConverter.DoubleToInt64Bits).ToArray();
        DoubleSum.AddInto(sumBits, slots.Select(BitConverter.DoubleToInt64Bits).ToArray());
        Assert.Equal(expected.Select(BitConverter.DoubleToInt64Bits), sumBits);

        // Past double.MaxValue a sum is infinite, as a read then shows.
        DoubleSum.AddInto(sumBits, Enumerable.Repeat(BitConverter.DoubleToInt64Bits(double.MaxValue), length).ToArray());
        DoubleSum.AddInto(sumBits, Enumerable.Repeat(BitConverter.DoubleToInt64Bits(double.MaxValue), length).ToArray());
        Assert.All(sumBits, bits => Assert.Equal(double.PositiveInfinity, BitConverter.Int64BitsToDouble(bits)));
    }
}
