package host

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"
)

// demoPNG returns a real 64×64 PNG: a colour gradient with a white diagonal.
var demoPNG = sync.OnceValue(func() []byte {
	const n = 64
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	for y := range n {
		for x := range n {
			c := color.NRGBA{R: uint8(x * 4), G: uint8(y * 4), B: 160, A: 255}
			if x == y || x == n-1-y {
				c = color.NRGBA{R: 255, G: 255, B: 255, A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding an in-memory image cannot fail
	}
	return b.Bytes()
})

// demoWAV returns a real WAV file: half a second of a 440 Hz sine tone, 8 kHz, 16-bit
// mono PCM, fading out at the end.
var demoWAV = sync.OnceValue(func() []byte {
	const (
		rate    = 8000
		samples = rate / 2
		freq    = 440.0
	)
	pcm := make([]byte, samples*2)
	for i := range samples {
		fade := 1.0
		if i > samples*3/4 {
			fade = float64(samples-i) / float64(samples/4)
		}
		v := int16(math.Sin(2*math.Pi*freq*float64(i)/rate) * 12000 * fade)
		binary.LittleEndian.PutUint16(pcm[i*2:], uint16(v))
	}
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + len(pcm)))
	b.WriteString("WAVE")
	b.WriteString("fmt ")
	w(uint32(16))       // fmt chunk size
	w(uint16(1))        // PCM
	w(uint16(1))        // mono
	w(uint32(rate))     // sample rate
	w(uint32(rate * 2)) // byte rate
	w(uint16(2))        // block align
	w(uint16(16))       // bits per sample
	b.WriteString("data")
	w(uint32(len(pcm)))
	b.Write(pcm)
	return b.Bytes()
})
