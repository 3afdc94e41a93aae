package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// media holds the images scenario's binary payloads, generated at start-up so they are
// real, decodable files rather than hard-coded blobs.
type media struct {
	png, wav, blob string // base64, standard encoding
}

func newMedia() media {
	blob := make([]byte, 16)
	for i := range blob {
		blob[i] = byte(i)
	}
	return media{
		png:  base64.StdEncoding.EncodeToString(makePNG()),
		wav:  base64.StdEncoding.EncodeToString(makeWAV()),
		blob: base64.StdEncoding.EncodeToString(blob),
	}
}

// content is the result of tools/call pic: one block of every non-text kind.
func (m media) content() map[string]any {
	return map[string]any{"content": []any{
		textContent("here is a picture"),
		map[string]any{"type": "image", "data": m.png, "mimeType": "image/png"},
		map[string]any{"type": "audio", "data": m.wav, "mimeType": "audio/wav"},
		map[string]any{"type": "resource_link", "uri": "file:///tmp/report.txt", "name": "report", "mimeType": "text/plain"},
		map[string]any{"type": "resource", "resource": map[string]any{
			"uri": "mem://blob", "mimeType": "application/octet-stream", "blob": m.blob,
		}},
	}}
}

// makePNG encodes a 2x3 (width x height) image with a distinct colour per pixel, so a
// viewer that mixes up rows and columns shows it.
func makePNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 3))
	for y := range 3 {
		for x := range 2 {
			img.Set(x, y, color.NRGBA{R: uint8(x * 255), G: uint8(y * 127), B: 200, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err) // cannot happen when writing to memory
	}
	return buf.Bytes()
}

// makeWAV builds a canonical 44-byte-header PCM WAV (mono, 8 kHz, 16-bit) holding 100
// bytes of silence. 16-bit samples are signed, so silence is all zero bytes.
func makeWAV() []byte {
	const dataLen = 100
	const rate, channels, bits = 8000, 1, 16
	const blockAlign = channels * bits / 8
	b := make([]byte, 44+dataLen)
	le := binary.LittleEndian
	copy(b[0:], "RIFF")
	le.PutUint32(b[4:], 36+dataLen) // size of everything after this field
	copy(b[8:], "WAVE")
	copy(b[12:], "fmt ")
	le.PutUint32(b[16:], 16) // fmt chunk size
	le.PutUint16(b[20:], 1)  // PCM
	le.PutUint16(b[22:], channels)
	le.PutUint32(b[24:], rate)
	le.PutUint32(b[28:], rate*blockAlign) // byte rate
	le.PutUint16(b[32:], blockAlign)
	le.PutUint16(b[34:], bits)
	copy(b[36:], "data")
	le.PutUint32(b[40:], dataLen)
	return b
}
